import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * How an address may be used as a fetch destination:
 * - `public`: globally routable unicast, always allowed;
 * - `private`: internal networks (loopback, RFC 1918, link-local, ULA…), allowed only when the
 *   operator sets `allowPrivateNetworks`;
 * - `reserved`: never a meaningful unicast destination (unspecified, multicast, documentation,
 *   benchmarking, tunnelling prefixes…), refused even with `allowPrivateNetworks`;
 * - `metadata`: a cloud's instance metadata or credentials endpoint, refused even with
 *   `allowPrivateNetworks`: opening internal networks to tools must not hand them the host's cloud
 *   credentials (the classic SSRF prize).
 */
export type AddressKind = 'public' | 'private' | 'reserved' | 'metadata';

export type AddressClassification = {
  /** Canonical text form (dotted quad or RFC 5952 IPv6), or the input when it is not an IP. */
  address: string;
  kind: AddressKind;
  /** Human-readable range name, used in refusal messages. */
  range: string;
  /** The IPv4 address carried inside an IPv6 transition form (mapped, NAT64, 6to4, Teredo…). */
  embeddedIPv4?: string;
};

type RangeEntry = { cidr: string; kind: Exclude<AddressKind, 'public'>; range: string };

// Cloud metadata and credentials endpoints first (they sit inside link-local and CGNAT), then the
// IANA IPv4 special-purpose registry. Order matters only where ranges nest (broadcast in 240/4).
const IPV4_SPECIAL_RANGES: RangeEntry[] = [
  { cidr: '169.254.169.254/32', kind: 'metadata', range: 'cloud instance metadata 169.254.169.254 (AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle)' },
  { cidr: '169.254.170.2/32', kind: 'metadata', range: 'AWS ECS task credentials 169.254.170.2' },
  { cidr: '169.254.170.23/32', kind: 'metadata', range: 'AWS EKS Pod Identity credentials 169.254.170.23' },
  { cidr: '100.100.100.200/32', kind: 'metadata', range: 'Alibaba Cloud instance metadata 100.100.100.200' },
  { cidr: '0.0.0.0/8', kind: 'reserved', range: '"this network" 0.0.0.0/8' },
  { cidr: '10.0.0.0/8', kind: 'private', range: 'private-use 10.0.0.0/8' },
  { cidr: '100.64.0.0/10', kind: 'private', range: 'shared address space (carrier-grade NAT) 100.64.0.0/10' },
  { cidr: '127.0.0.0/8', kind: 'private', range: 'loopback 127.0.0.0/8' },
  { cidr: '169.254.0.0/16', kind: 'private', range: 'link-local 169.254.0.0/16 (cloud metadata)' },
  { cidr: '172.16.0.0/12', kind: 'private', range: 'private-use 172.16.0.0/12' },
  { cidr: '192.0.0.0/24', kind: 'reserved', range: 'IETF protocol assignments 192.0.0.0/24' },
  { cidr: '192.0.2.0/24', kind: 'reserved', range: 'documentation (TEST-NET-1) 192.0.2.0/24' },
  { cidr: '192.31.196.0/24', kind: 'reserved', range: 'AS112-v4 192.31.196.0/24' },
  { cidr: '192.52.193.0/24', kind: 'reserved', range: 'AMT 192.52.193.0/24' },
  { cidr: '192.88.99.0/24', kind: 'reserved', range: 'deprecated 6to4 relay anycast 192.88.99.0/24' },
  { cidr: '192.168.0.0/16', kind: 'private', range: 'private-use 192.168.0.0/16' },
  { cidr: '192.175.48.0/24', kind: 'reserved', range: 'AS112 direct delegation 192.175.48.0/24' },
  { cidr: '198.18.0.0/15', kind: 'reserved', range: 'benchmarking 198.18.0.0/15' },
  { cidr: '198.51.100.0/24', kind: 'reserved', range: 'documentation (TEST-NET-2) 198.51.100.0/24' },
  { cidr: '203.0.113.0/24', kind: 'reserved', range: 'documentation (TEST-NET-3) 203.0.113.0/24' },
  { cidr: '224.0.0.0/4', kind: 'reserved', range: 'multicast 224.0.0.0/4' },
  { cidr: '255.255.255.255/32', kind: 'reserved', range: 'limited broadcast 255.255.255.255' },
  { cidr: '240.0.0.0/4', kind: 'reserved', range: 'reserved 240.0.0.0/4' },
];

// IANA IPv6 special-purpose registry, minus the prefixes that embed IPv4 (handled in classifyIPv6).
const IPV6_SPECIAL_RANGES: RangeEntry[] = [
  { cidr: 'fd00:ec2::254/128', kind: 'metadata', range: 'AWS instance metadata over IPv6 fd00:ec2::254' },
  { cidr: 'fd00:ec2::23/128', kind: 'metadata', range: 'AWS EKS Pod Identity credentials over IPv6 fd00:ec2::23' },
  { cidr: '::/128', kind: 'reserved', range: 'unspecified ::' },
  { cidr: '::1/128', kind: 'private', range: 'loopback ::1' },
  { cidr: '100::/64', kind: 'reserved', range: 'discard-only 100::/64' },
  { cidr: '2001:db8::/32', kind: 'reserved', range: 'documentation 2001:db8::/32' },
  { cidr: '2001::/23', kind: 'reserved', range: 'IETF protocol assignments 2001::/23' },
  { cidr: '2620:4f:8000::/48', kind: 'reserved', range: 'AS112-v6 2620:4f:8000::/48' },
  { cidr: '3fff::/20', kind: 'reserved', range: 'documentation 3fff::/20' },
  { cidr: '5f00::/16', kind: 'reserved', range: 'segment routing SIDs 5f00::/16' },
  { cidr: 'fc00::/7', kind: 'private', range: 'unique local fc00::/7' },
  { cidr: 'fe80::/10', kind: 'private', range: 'link-local fe80::/10' },
  { cidr: 'fec0::/10', kind: 'private', range: 'deprecated site-local fec0::/10' },
  { cidr: 'ff00::/8', kind: 'reserved', range: 'multicast ff00::/8' },
];

const parsedIPv4Ranges = IPV4_SPECIAL_RANGES.map((entry) => ({ ...entry, subnet: ipaddr.IPv4.parseCIDR(entry.cidr) }));
const parsedIPv6Ranges = IPV6_SPECIAL_RANGES.map((entry) => ({ ...entry, subnet: ipaddr.IPv6.parseCIDR(entry.cidr) }));
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const NAT64_LOCAL_USE = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16');
const TEREDO = ipaddr.IPv6.parseCIDR('2001::/32');

/**
 * Canonicalises an address as returned by a resolver or taken from a URL host. Only strict
 * forms are accepted (`net.isIP`), so what we classify is exactly what `net.connect` would dial.
 * Returns null for anything that is not an IP address.
 */
export function canonicalizeIp(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return ipaddr.IPv4.parse(bare).toString();
  // A zone id only ever appears on link-local addresses; it does not change the range.
  const withoutZone = bare.split('%')[0] ?? '';
  if (!isIPv6(withoutZone)) return null;
  // ipaddr.js reads the deprecated `::a.b.c.d` form as IPv4-mapped; the WHATWG host parser
  // rewrites it to hex words first so the bytes we classify are the real ones.
  return new URL(`http://[${withoutZone}]/`).hostname.slice(1, -1);
}

/**
 * Classifies one IP address against every IANA special-purpose range, decoding the IPv4
 * address inside IPv6 transition forms. Anything unparseable is `reserved` (refused).
 * @example classifyAddress('::ffff:7f00:1') // { kind: 'private', range: 'IPv4-mapped IPv6 …', embeddedIPv4: '127.0.0.1' }
 */
export function classifyAddress(address: string): AddressClassification {
  const canonical = canonicalizeIp(address);
  if (canonical === null) return { address, kind: 'reserved', range: 'not an IP address' };
  return isIPv4(canonical) ? classifyIPv4(ipaddr.IPv4.parse(canonical)) : classifyIPv6(ipaddr.IPv6.parse(canonical));
}

function classifyIPv4(ip: ipaddr.IPv4): AddressClassification {
  const address = ip.toString();
  const special = parsedIPv4Ranges.find((entry) => ip.match(entry.subnet));
  if (special) return { address, kind: special.kind, range: special.range };
  // Belt and braces: if a future ipaddr.js learns a range we did not list, refuse it too.
  const libraryRange = ip.range();
  if (libraryRange !== 'unicast') return { address, kind: 'reserved', range: `special-purpose (${libraryRange})` };
  return { address, kind: 'public', range: 'global unicast' };
}

function classifyIPv6(ip: ipaddr.IPv6): AddressClassification {
  const address = ip.toString();
  const parts = ip.parts;
  const word = (index: number) => parts[index] ?? 0;

  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (SIIT translated) and ::a.b.c.d (deprecated
  // compatible) all reach the IPv4 host on a dual-stack socket. They are never a legitimate
  // DNS answer for a public site, so they are refused; the embedded address decides whether
  // `allowPrivateNetworks` can lift the refusal.
  const firstFiveZero = word(0) === 0 && word(1) === 0 && word(2) === 0 && word(3) === 0 && word(4) === 0;
  const isMapped = firstFiveZero && word(5) === 0xffff;
  const isTranslated = word(0) === 0 && word(1) === 0 && word(2) === 0 && word(3) === 0 && word(4) === 0xffff && word(5) === 0;
  const isCompatible = firstFiveZero && word(5) === 0 && (word(6) !== 0 || word(7) > 1);
  if (isMapped || isTranslated || isCompatible) {
    const embedded = classifyIPv4(ipv4FromWords(word(6), word(7)));
    const form = isMapped ? 'IPv4-mapped' : isTranslated ? 'IPv4-translated' : 'IPv4-compatible';
    return {
      address,
      kind: embedded.kind === 'private' || embedded.kind === 'metadata' ? embedded.kind : 'reserved',
      range: `${form} IPv6 embedding ${embedded.address} (${embedded.range})`,
      embeddedIPv4: embedded.address,
    };
  }

  // NAT64 and 6to4 carry a real IPv4 destination: the translator or relay will dial it, so
  // the embedded address is what gets classified.
  if (ip.match(NAT64_WELL_KNOWN)) {
    return fromEmbedded(address, 'NAT64 64:ff9b::/96', ipv4FromWords(word(6), word(7)));
  }
  if (ip.match(NAT64_LOCAL_USE)) {
    // RFC 6052 /48 layout: 16 bits before the reserved "u" octet (bits 64-71), 16 bits after.
    const embedded = new ipaddr.IPv4([word(3) >> 8, word(3) & 0xff, word(4) & 0xff, word(5) >> 8]);
    const verdict = fromEmbedded(address, 'local-use NAT64 64:ff9b:1::/48', embedded);
    // A local-use translator is by definition inside someone's network.
    return verdict.kind === 'public' ? { ...verdict, kind: 'private' } : verdict;
  }
  if (ip.match(SIX_TO_FOUR)) {
    return fromEmbedded(address, '6to4 2002::/16', ipv4FromWords(word(1), word(2)));
  }
  if (ip.match(TEREDO)) {
    // Server address in bits 32-63; client address obfuscated (bit-inverted) in bits 96-127.
    const server = ipv4FromWords(word(2), word(3)).toString();
    const client = ipv4FromWords(~word(6) & 0xffff, ~word(7) & 0xffff).toString();
    return { address, kind: 'reserved', range: `Teredo 2001::/32 (server ${server}, client ${client})`, embeddedIPv4: client };
  }

  const special = parsedIPv6Ranges.find((entry) => ip.match(entry.subnet));
  if (special) return { address, kind: special.kind, range: special.range };
  // Everything outside 2000::/3 is unassigned or reserved by the IETF.
  if (!ip.match(GLOBAL_UNICAST)) return { address, kind: 'reserved', range: 'outside global unicast 2000::/3' };
  const libraryRange = ip.range();
  if (libraryRange !== 'unicast') return { address, kind: 'reserved', range: `special-purpose (${libraryRange})` };
  return { address, kind: 'public', range: 'global unicast' };
}

function fromEmbedded(address: string, form: string, embeddedIp: ipaddr.IPv4): AddressClassification {
  const embedded = classifyIPv4(embeddedIp);
  return {
    address,
    kind: embedded.kind,
    range: embedded.kind === 'public' ? `${form} embedding ${embedded.address}` : `${form} embedding ${embedded.address} (${embedded.range})`,
    embeddedIPv4: embedded.address,
  };
}

function ipv4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** True when a destination of this kind may be dialled under the given policy. */
export function isKindAllowed(kind: AddressKind, allowPrivateNetworks: boolean): boolean {
  return kind === 'public' || (kind === 'private' && allowPrivateNetworks);
}
