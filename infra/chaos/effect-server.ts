import { createServer, type Server } from 'node:http';

/** One request the side-effect server received. */
export type EffectHit = { path: string; method: string; idempotencyKey: string | null; at: number };

export type EffectServer = {
  url: string;
  hits: EffectHit[];
  /** Hits per path (each run's tool call gets a path of its own). */
  hitsFor: (path: string) => EffectHit[];
  close: () => Promise<void>;
};

/**
 * A loopback HTTP server standing in for the outside world a tool acts on: it counts every hit with
 * its Idempotency-Key header (it does not dedupe, so repeats stay visible). `/slow-<ms>/...` paths
 * answer after that many milliseconds, like a slow payment API.
 */
export async function startEffectServer(): Promise<EffectServer> {
  const hits: EffectHit[] = [];
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    hits.push({ path, method: request.method ?? 'GET', idempotencyKey: (request.headers['idempotency-key'] as string | undefined) ?? null, at: Date.now() });
    request.resume();
    const delay = Number(/^\/slow-(\d+)\//.exec(path)?.[1] ?? 0);
    const timer = setTimeout(() => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(`done ${path}`);
    }, delay);
    response.on('close', () => clearTimeout(timer));
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    hitsFor: (path) => hits.filter((hit) => hit.path === path),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
