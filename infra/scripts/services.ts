import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { Socket } from 'node:net';

/** True when something accepts TCP connections on host:port. */
export function isListening(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const finish = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    socket.connect(port, host, () => finish(true));
  });
}

async function waitFor(host: string, port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await isListening(host, port)) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/** Starts the machine's PostgreSQL cluster and Redis when they are installed but not running. */
export async function ensureLocalServices(log: (line: string) => void = console.log): Promise<void> {
  if (!(await isListening('127.0.0.1', 5432))) {
    const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : [];
    if (versions.length === 0) throw new Error('PostgreSQL is not running on 127.0.0.1:5432 and no local cluster is installed (run .ci/run or install postgresql)');
    log(`starting PostgreSQL ${versions[0]}`);
    spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', versions[0]!, 'main', 'start'], { stdio: 'inherit' });
    if (!(await waitFor('127.0.0.1', 5432, 30_000))) throw new Error('PostgreSQL did not start');
  }
  if (!(await isListening('127.0.0.1', 6379))) {
    log('starting Redis');
    const result = spawnSync('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no'], { stdio: 'inherit' });
    if (result.error) throw new Error('Redis is not running on 127.0.0.1:6379 and redis-server is not installed (run .ci/run or install redis-server)');
    if (!(await waitFor('127.0.0.1', 6379, 15_000))) throw new Error('Redis did not start');
  }
}
