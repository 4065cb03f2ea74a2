import { BlockList, isIP } from 'node:net';
import type { Context } from 'hono';
import type { AppEnv } from '../deps';

/** What TRUSTED_PROXIES defaults to: loopback and the private networks a reverse proxy or the web process sits on. */
export const DEFAULT_TRUSTED_PROXIES = ['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '::1', 'fc00::/7'];

/**
 * The peers allowed to say who the client is (X-Forwarded-For): our own reverse proxies (the web
 * process, a load balancer in the cluster). Anyone else cannot spoof an address into the login
 * throttle. Entries are addresses or CIDR blocks, as TRUSTED_PROXIES checks them.
 */
export function trustedProxies(entries: readonly string[] = DEFAULT_TRUSTED_PROXIES): BlockList {
  const list = new BlockList();
  for (const entry of entries.length > 0 ? entries : DEFAULT_TRUSTED_PROXIES) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

const DEFAULT_PROXY_NETWORKS = trustedProxies();

function unmapped(address: string): string {
  return address.toLowerCase().startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function socketAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } }; server?: { incoming?: { socket?: { remoteAddress?: string } } } } | undefined;
  const address = (env?.server ?? env)?.incoming?.socket?.remoteAddress;
  return address ? unmapped(address) : undefined;
}

/**
 * The address of the client behind this request: the socket peer, or, when the peer is one of our
 * proxies (TRUSTED_PROXIES: loopback and private networks by default), the last address it
 * appended to X-Forwarded-For. In-process requests (`app.request` in tests) have no socket and
 * count as a proxy peer.
 */
export function clientAddress(c: Context<AppEnv>): string {
  const peer = socketAddress(c);
  const proxies = c.get('config')?.trustedProxies ?? DEFAULT_PROXY_NETWORKS;
  const family = peer ? isIP(peer) : 0;
  if (peer && !(family !== 0 && proxies.check(peer, family === 4 ? 'ipv4' : 'ipv6'))) return peer;
  const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
  const claimed = forwarded ? unmapped(forwarded) : undefined;
  if (claimed && isIP(claimed)) return claimed;
  return peer ?? 'unknown';
}
