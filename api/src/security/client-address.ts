import { BlockList, isIP } from 'node:net';
import type { Context } from 'hono';

// Peers on these networks are our own reverse proxies (the web process, a load balancer in the
// cluster); only they may tell us who the client is. A public peer cannot spoof X-Forwarded-For.
const PROXY_NETWORKS = new BlockList();
PROXY_NETWORKS.addSubnet('127.0.0.0', 8, 'ipv4');
PROXY_NETWORKS.addSubnet('10.0.0.0', 8, 'ipv4');
PROXY_NETWORKS.addSubnet('172.16.0.0', 12, 'ipv4');
PROXY_NETWORKS.addSubnet('192.168.0.0', 16, 'ipv4');
PROXY_NETWORKS.addAddress('::1', 'ipv6');
PROXY_NETWORKS.addSubnet('fc00::', 7, 'ipv6');

function unmapped(address: string): string {
  return address.toLowerCase().startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function isProxyPeer(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && PROXY_NETWORKS.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

function socketAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } }; server?: { incoming?: { socket?: { remoteAddress?: string } } } } | undefined;
  const address = (env?.server ?? env)?.incoming?.socket?.remoteAddress;
  return address ? unmapped(address) : undefined;
}

/**
 * The address of the client behind this request: the socket peer, or, when the peer is one of our
 * proxies (loopback or a private network), the last address it appended to X-Forwarded-For.
 * In-process requests (`app.request` in tests) have no socket and count as a proxy peer.
 */
export function clientAddress(c: Context): string {
  const peer = socketAddress(c);
  if (peer && !isProxyPeer(peer)) return peer;
  const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
  const claimed = forwarded ? unmapped(forwarded) : undefined;
  if (claimed && isIP(claimed)) return claimed;
  return peer ?? 'unknown';
}
