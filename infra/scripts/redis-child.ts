import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';

/** A free TCP port on loopback, chosen by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export const REDIS_MISSING_MESSAGE = [
  'agentq needs Redis and none was given.',
  'Either set REDIS_URL=redis://host:6379 to use an existing server,',
  'or install redis-server so `npm start` can run one for you:',
  '  Debian/Ubuntu: sudo apt-get install -y redis-server',
  '  macOS:         brew install redis',
  '  Docker:        docker run -d -p 6379:6379 redis:7 --maxmemory-policy noeviction',
].join('\n');

/** Starts a private redis-server child (AOF on, noeviction) with its data under `dataDir`. */
export async function startRedisChild(
  dataDir: string,
  options: { port?: number; persistent?: boolean } = {},
): Promise<{ url: string; port: number; child: ChildProcess; stop: () => Promise<void> }> {
  const port = options.port ?? (await freePort());
  const dir = resolve(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', options.persistent === false ? 'no' : 'yes', '--maxmemory-policy', 'noeviction', '--save', ''],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  const started = Date.now();
  for (;;) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch {
      if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
      if (Date.now() - started > 10_000) throw new Error('redis-server did not start within 10 s');
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  probe.disconnect();
  return {
    url,
    port,
    child,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
