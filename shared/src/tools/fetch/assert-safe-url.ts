import { lookup } from 'node:dns/promises';
import { type AddressClassification, canonicalizeIp, classifyAddress, isKindAllowed } from './ip-ranges';
import { abortable } from '../../abortable';

/** Resolves a hostname to every address it has (A and AAAA). Injectable so tests never use real DNS. */
export type ResolveHostname = (hostname: string) => Promise<string[]>;

export type AssertSafeUrlOptions = {
  resolve?: ResolveHostname;
  /** Operator escape hatch: lets loopback/RFC 1918/link-local through. Scheme checks and reserved ranges stay. */
  allowPrivateNetworks?: boolean;
  /** Stops waiting for DNS when the fetch is cancelled or times out. */
  signal?: AbortSignal;
};

/**
 * A destination the fetch tool refuses to contact. Thrown before any connection is attempted
 * (or by the connector, at connect time); the executor turns it into a tool error value.
 */
export class BlockedDestinationError extends Error {
  override readonly name = 'BlockedDestinationError';
  /** Why it was refused, e.g. "127.0.0.1 is in loopback 127.0.0.0/8". */
  readonly reason: string;
  readonly url: string;
  /** The refused address, when the refusal is about an address rather than the URL itself. */
  readonly address: string | undefined;

  constructor(options: { url: string; reason: string; address?: string; cause?: unknown }) {
    super(`Refused to fetch ${options.url}: ${options.reason}. Only public http(s) destinations are allowed.`, {
      cause: options.cause,
    });
    this.reason = options.reason;
    this.url = options.url;
    this.address = options.address;
  }
}

/** Default resolver: the system resolver (getaddrinfo, so /etc/hosts counts), every family. */
export const resolveWithSystemDns: ResolveHostname = async (hostname) => {
  const records = await lookup(hostname, { all: true, order: 'verbatim' });
  return records.map((record) => record.address);
};

/**
 * Checks that `url` is http(s) and that its host, and every address the host resolves to, is
 * a public destination. Returns the checked (canonical) addresses or throws
 * `BlockedDestinationError`. DNS failures are rethrown as they are.
 * @example await assertSafeUrl('http://0x7f.1/') // throws: 127.0.0.1 is in loopback 127.0.0.0/8
 */
export async function assertSafeUrl(url: string | URL, options: AssertSafeUrlOptions = {}): Promise<string[]> {
  const allowPrivateNetworks = options.allowPrivateNetworks ?? false;
  let parsed: URL;
  try {
    // The WHATWG parser normalises every IPv4 spelling it accepts (2130706433, 0177.0.0.1,
    // 0x7f.1, 127.1, full-width digits, percent-encoding) to a dotted quad, so we classify
    // what the HTTP client will actually dial.
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch (error) {
    throw new BlockedDestinationError({ url: String(url), reason: 'not a valid absolute URL', cause: error });
  }
  const href = parsed.href;
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new BlockedDestinationError({ url: href, reason: `scheme "${parsed.protocol.replace(/:$/, '')}" is not http or https` });
  }

  const hostname = normalizeHostname(parsed.hostname);
  if (hostname === '') throw new BlockedDestinationError({ url: href, reason: 'the URL has no host' });

  if (canonicalizeIp(hostname) !== null) {
    return [assertAddressesAllowed(href, [hostname], allowPrivateNetworks)[0]!.address];
  }

  if (isLocalhostName(hostname) && !allowPrivateNetworks) {
    throw new BlockedDestinationError({ url: href, reason: `"${hostname}" always means this machine` });
  }

  const resolve = options.resolve ?? resolveWithSystemDns;
  // Resolve the name exactly as the connector will (a trailing root dot included), so both
  // lookups ask the same question.
  const addresses = await abortable(resolve(parsed.hostname), options.signal);
  return assertAddressesAllowed(href, addresses, allowPrivateNetworks, hostname).map((entry) => entry.address);
}

/**
 * Classifies every address and throws if any one is refused: a host with one public and one
 * private record could be steered to the private one, so a single bad record fails the host.
 */
export function assertAddressesAllowed(
  url: string,
  addresses: readonly string[],
  allowPrivateNetworks: boolean,
  hostname?: string,
): AddressClassification[] {
  if (addresses.length === 0) {
    throw new BlockedDestinationError({ url, reason: `${hostname ?? 'the host'} resolved to no addresses` });
  }
  const classifications = addresses.map((address) => classifyAddress(address));
  const refused = classifications.find((entry) => !isKindAllowed(entry.kind, allowPrivateNetworks));
  if (refused) {
    const via = hostname ? `${hostname} resolves to ` : '';
    throw new BlockedDestinationError({
      url,
      reason: `${via}${refused.address}, which is in ${refused.range}`,
      address: refused.address,
    });
  }
  return classifications;
}

/** `localhost` and everything under `.localhost` (RFC 6761) must resolve to loopback, whatever DNS says. */
export function isLocalhostName(hostname: string): boolean {
  const name = normalizeHostname(hostname);
  return name === 'localhost' || name.endsWith('.localhost');
}

/** Lower-cases and drops the trailing root dot, so `LOCALHOST.` and `localhost` compare equal. */
export function normalizeHostname(hostname: string): string {
  const lower = hostname.toLowerCase();
  const unbracketed = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

/** Finds a BlockedDestinationError anywhere in an error's cause chain (undici wraps connector errors). */
export function findBlockedDestinationError(error: unknown): BlockedDestinationError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current; depth += 1) {
    if (current instanceof BlockedDestinationError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
