import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '@agentq/shared/testing/redis-server';

export type PrivatePostgres = {
  /** Server-level URL (database `postgres`); scenarios create their own databases in it. */
  serverUrl: string;
  port: number;
  /** `pg_ctl stop -m <mode>`: immediate is a crash (no checkpoint), fast a clean shutdown. */
  stop: (mode?: 'immediate' | 'fast') => void;
  /**
   * A crash at once: SIGQUIT to the postmaster (what `-m immediate` sends) from this process, then
   * waits until it is gone. Without pg_ctl's start-up in between, nothing has time to write out
   * WAL that a commit left unflushed just before.
   */
  crash: () => Promise<void>;
  start: () => void;
  dispose: () => void;
};

/** The PostgreSQL server binaries (initdb, pg_ctl) of the newest installed version, if any. */
export function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

function run(bin: string, args: string[]) {
  // initdb and postgres refuse to run as root: drop to the postgres user when we are root.
  const asRoot = process.getuid?.() === 0;
  const result = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', bin, ...args], { encoding: 'utf8' }) : spawnSync(bin, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
}

/**
 * A PostgreSQL cluster of the chaos suite's own (initdb in a temp dir, pg_ctl on a free loopback
 * port, trust auth): stopping it never touches the machine's shared server.
 */
export async function startPrivatePostgres(bin: string, settings: Record<string, string | number> = {}): Promise<PrivatePostgres> {
  const port = await freeLoopbackPort();
  const dir = mkdtempSync(join(tmpdir(), 'agentq-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) spawnSync('chown', ['-R', 'postgres:postgres', dir]);
  run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c max_connections=300 -c fsync=off -c full_page_writes=off${Object.entries(settings)
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join('')}`;
  const start = () => run(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  start();
  return {
    serverUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: (mode = 'immediate') => run(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']),
    crash: async () => {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGQUIT');
      const alive = () => {
        try {
          return process.kill(pid, 0);
        } catch {
          return false;
        }
      };
      for (let waited = 0; alive() && waited < 60_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    start,
    dispose: () => {
      spawnSync(process.getuid?.() === 0 ? 'runuser' : join(bin, 'pg_ctl'), process.getuid?.() === 0 ? ['-u', 'postgres', '--', join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'] : ['-D', data, '-m', 'immediate', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
