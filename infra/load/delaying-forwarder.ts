import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder that holds every chunk `oneWayMs` in each direction, keeping order: the
 * stand-in for `tc netem delay` on kernels without sch_netem. Listens on `listen` (e.g. the
 * root end of a veth pair) and connects to `target` (a loopback service). `onRequest` sees each
 * client→server read as it arrives, before any delay (when a statement reached the wire).
 */
export async function startDelayingForwarder(
  listen: { host: string; port: number },
  target: { host: string; port: number },
  oneWayMs: number,
  onRequest?: (chunk: Buffer) => void,
): Promise<Server & { flights: { requests: number } }> {
  // Client→server reads: each is one request flight (a command, a pipeline, a query batch) that
  // waits a round trip; counting them gives round trips per run without MONITOR or statement logs.
  const flights = { requests: 0 };
  const pipeDelayed = (from: Socket, to: Socket, upstreamBound: boolean) => {
    let due = 0;
    from.on('data', (chunk) => {
      if (upstreamBound) {
        flights.requests++;
        onRequest?.(chunk);
      }
      if (oneWayMs === 0) {
        to.write(chunk);
        return;
      }
      due = Math.max(Date.now() + oneWayMs, due);
      setTimeout(() => to.write(chunk), Math.max(0, due - Date.now()));
    });
    from.on('end', () => setTimeout(() => to.end(), Math.max(0, due - Date.now())));
    from.on('error', () => to.destroy());
  };
  const server = createServer((client) => {
    client.setNoDelay(true);
    const upstream = connect({ host: target.host, port: target.port });
    upstream.setNoDelay(true);
    pipeDelayed(client, upstream, true);
    pipeDelayed(upstream, client, false);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, resolve);
  });
  return Object.assign(server, { flights });
}
