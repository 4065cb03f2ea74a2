import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { freePort } from '../scripts/redis-child';
import { dropRedisPrefix } from './redis-prefix';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export type ManagedProcess = {
  child: ChildProcess;
  output: () => string;
  /** SIGTERM by default; resolves once the process has exited. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
};

/** `api/src/index.ts` through tsx, or its bundle `api/dist/index.js` with plain node (what production runs). */
function commandOf(entry: string, compiled: boolean): string[] {
  if (!compiled) return ['--import', 'tsx', `${repoRoot}${entry}`];
  return [`${repoRoot}${entry.replace('/src/', '/dist/').replace(/\.ts$/, '.js')}`];
}

function run(entry: string, env: NodeJS.ProcessEnv, readyText: string, label: string, compiled = false): Promise<ManagedProcess> {
  const child = spawn(process.execPath, commandOf(entry, compiled), { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  // Keep a bounded tail: long load runs log a lot.
  const append = (chunk: Buffer) => {
    output += chunk;
    if (output.length > 1_000_000) output = output.slice(-500_000);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const managed: ManagedProcess = {
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      clearInterval(check);
      child.kill('SIGKILL');
      reject(new Error(`${label} did not start within 60 s:\n${output}`));
    }, 60_000);
    const check = setInterval(() => {
      if (output.includes(readyText)) {
        clearInterval(check);
        clearTimeout(deadline);
        resolve(managed);
      } else if (child.exitCode !== null) {
        clearInterval(check);
        clearTimeout(deadline);
        reject(new Error(`${label} exited with ${child.exitCode}:\n${output}`));
      }
    }, 50);
  });
}

export type ProcessStack = {
  /** The first API process's URL (`apiUrls` lists every API process). */
  apiUrl: string;
  apiUrls: string[];
  databaseUrl: string;
  prefix: string;
  admin: { email: string; password: string };
  api: ManagedProcess;
  apis: ManagedProcess[];
  workers: ManagedProcess[];
  /** Starts one more worker process on the same database and queues. */
  startWorker: (env?: Record<string, string>) => Promise<ManagedProcess>;
  stop: () => Promise<void>;
};

/**
 * The production shape for tests: an API process and worker processes (separate Node processes,
 * as docker-compose runs them) on a fresh database of the test PostgreSQL and a private queue prefix.
 */
export type ProcessStackOptions = {
  apis?: number;
  workers?: number;
  env?: Record<string, string>;
  workerEnv?: Record<string, string>;
  /** Run the compiled bundles (`npm run build`, built here when sources changed) instead of tsx: the production shape benchmarks measure. */
  compiled?: boolean;
};

/** Builds the server bundles unless their inputs are unchanged since the last build. */
function buildServer(): void {
  const result = spawnSync(process.execPath, ['--import', 'tsx', `${repoRoot}infra/compile/build.ts`, 'server'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build -- server failed:\n${result.stdout}${result.stderr}`);
}

export async function startProcessStack(options: ProcessStackOptions = {}): Promise<ProcessStack> {
  const compiled = options.compiled ?? false;
  if (compiled) buildServer();
  const databaseName = `agentq_procs_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const server = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  await server.unsafe(`create database "${databaseName}"`);
  const databaseUrl = Object.assign(new URL(SERVER_URL), { pathname: `/${databaseName}` }).toString();
  const prefix = `aqp-${randomBytes(4).toString('hex')}`;
  const admin = { email: `admin-${randomBytes(3).toString('hex')}@test.local`, password: 'admin-password-123' };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    APP_SECRET: 'process-stack-secret-0123456789',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    FETCH_ALLOW_PRIVATE_NETWORKS: '1',
    LOG_LEVEL: 'info',
    // Tests start many short-lived stacks on one PostgreSQL (max_connections 100): connect on first use.
    // The benchmarks open the pools as production does (DATABASE_POOL_WARM=1).
    DATABASE_POOL_WARM: '0',
    ...options.env,
  };
  const apis: ManagedProcess[] = [];
  const apiUrls: string[] = [];
  const workers: ManagedProcess[] = [];
  const stop = async () => {
    await Promise.all([...apis, ...workers].map((managed) => managed.stop()));
    await server.unsafe(`drop database if exists "${databaseName}" with (force)`).catch(() => {});
    await server.end();
    await dropRedisPrefix(env.REDIS_URL!, prefix).catch(() => {});
  };
  const startWorker = async (extra: Record<string, string> = {}) => {
    const worker = await run('worker/src/index.ts', { ...env, ...options.workerEnv, ...extra }, 'worker started', 'worker', compiled);
    workers.push(worker);
    return worker;
  };
  try {
    for (let index = 0; index < (options.apis ?? 1); index++) {
      const port = await freePort();
      apis.push(await run('api/src/index.ts', { ...env, PORT: String(port), HOST: '127.0.0.1' }, 'api listening', `api ${index + 1}`, compiled));
      apiUrls.push(`http://127.0.0.1:${port}`);
    }
    for (let index = 0; index < (options.workers ?? 1); index++) await startWorker();
  } catch (error) {
    // A process that did not start leaves nothing behind: the others, the database, the keys.
    await stop();
    throw error;
  }
  return {
    apiUrl: apiUrls[0]!,
    apiUrls,
    databaseUrl,
    prefix,
    admin,
    api: apis[0]!,
    apis,
    workers,
    startWorker,
    stop,
  };
}
