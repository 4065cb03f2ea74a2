import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, Socket } from 'node:net';

/** A real HTTP server on 127.0.0.1 for fetch tests, counting what reached it. */
export type LoopbackServer = {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Request paths in arrival order. */
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  /** TCP connections accepted: zero proves nothing was even dialled. */
  connections: () => number;
  close: () => Promise<void>;
};

/**
 * Starts a loopback server with `handler`. Test-only helper.
 * @example const server = await startLoopbackServer((request, response) => response.end('ok'));
 */
export async function startLoopbackServer(
  handler: (request: IncomingMessage, response: ServerResponse, body: string) => void,
): Promise<LoopbackServer> {
  const requests: LoopbackServer['requests'] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handler(request, response, body);
    });
  });
  server.on('connection', (socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    port: address.port,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Makes any attempt to dial a non-loopback IP literal throw and records it, so a bug in the
 * code under test can never send traffic off this machine (tests hand out public addresses
 * from fake resolvers). Returns the attempts and an uninstall function.
 */
export function guardNonLoopbackConnections(): { attempts: string[]; uninstall: () => void } {
  const attempts: string[] = [];
  const original = Socket.prototype.connect;
  Socket.prototype.connect = function guardedConnect(this: Socket, ...args: unknown[]) {
    const first = args[0];
    const host =
      typeof first === 'object' && first !== null && 'host' in first
        ? String((first as { host?: unknown }).host ?? '')
        : typeof args[1] === 'string'
          ? args[1]
          : '';
    if (isIP(host) && !isLoopbackLiteral(host)) {
      attempts.push(host);
      throw new Error(`test guard: refused to dial non-loopback address ${host}`);
    }
    return (original as (...values: unknown[]) => Socket).apply(this, args);
  } as typeof Socket.prototype.connect;
  return {
    attempts,
    uninstall: () => {
      Socket.prototype.connect = original;
    },
  };
}

function isLoopbackLiteral(host: string): boolean {
  return host.startsWith('127.') || host === '::1' || host === '0.0.0.0';
}
