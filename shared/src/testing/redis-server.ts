import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A free TCP port on loopback, chosen by the OS. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export type PrivateRedis = {
  url: string;
  port: number;
  /** Stops the server (SIGTERM lets it write its AOF; SIGKILL does not) and waits for the exit. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
  /** Starts it again on the same port and data directory; resolves once it accepts connections (it may still be LOADING). */
  start: () => Promise<void>;
  /** Stops it for good and removes its data directory. */
  dispose: () => Promise<void>;
};

/**
 * A redis-server of a test's own on a free loopback port, for fault tests that stop and restart
 * Redis: never the machine's shared one. `appendonly` decides whether a restart keeps the data.
 */
export async function startPrivateRedis(options: { appendonly?: boolean; port?: number; appendfsync?: 'always' | 'everysec' } = {}): Promise<PrivateRedis> {
  const port = options.port ?? (await freeLoopbackPort());
  const dir = mkdtempSync(join(tmpdir(), 'agentq-redis-'));
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', options.appendonly === false ? 'no' : 'yes', '--appendfsync', options.appendfsync ?? 'always', '--save', '', '--maxmemory-policy', 'noeviction'],
      { stdio: 'ignore' },
    );
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    const started = Date.now();
    try {
      for (;;) {
        try {
          await probe.connect();
          break;
        } catch {
          if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
          if (Date.now() - started > 10_000) throw new Error('redis-server did not start within 10 s');
          await new Promise((done) => setTimeout(done, 50));
        }
      }
    } finally {
      probe.disconnect();
    }
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill(signal);
    await exited;
  };
  await start();
  return {
    url,
    port,
    stop,
    start,
    dispose: async () => {
      await stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
