import { connect, type Socket } from 'node:net';
import type postgres from 'postgres';

/** Where a pool's connections go: the parsed URL's hosts and ports, or a Unix socket path. */
export type PostgresAddress = Pick<postgres.ParsedOptions<{}>, 'host' | 'port' | 'path'>;

/**
 * postgres.js's `socket` option: opens each connection with TCP_NODELAY. The driver's own socket
 * keeps Nagle on, so a statement pipelined behind another on the same connection (the commit
 * lane's inserts, a pool connection given a second query) sits in the kernel until the first one's
 * answer, or Linux's delayed ACK (~40 ms), acknowledges the bytes before it (docs/benchmarks.md,
 * change 82). The socket is returned still connecting, as the driver's own is, so its connect
 * timeout and error handling apply unchanged. Hosts are tried in turn per pool, as the driver does
 * per connection, so a multi-host URL still fails over; `servername` for TLS reads `socket.host`.
 */
export function noDelaySocketOpener() {
  let next = 0;
  return (options: PostgresAddress): Socket => {
    if (options.path) return connect({ path: options.path });
    // The parsed URL has a port per host.
    const index = next++ % options.host.length;
    const host = options.host[index]!;
    return Object.assign(connect({ host, port: options.port[index]!, noDelay: true }), { host });
  };
}

/** The opener as postgres.js options to spread in: `socket` is documented but missing from the driver's types. */
export function noDelaySocketOption(): postgres.Options<{}> {
  return { socket: noDelaySocketOpener() } as postgres.Options<{}>;
}
