import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { freeLoopbackPort } from '@agentq/shared/testing/redis-server';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A product process the chaos suite started; exits it did not cause are crashes. */
export type ChaosProcess = {
  label: string;
  child: ChildProcess;
  output: () => string;
  /** Sends `signal` and waits for the exit (SIGKILL after 40 s). Expected: not a crash. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
};

export type ChaosStack = {
  apiUrl: string;
  admin: { email: string; password: string };
  api: () => ChaosProcess;
  workers: ChaosProcess[];
  startWorker: () => Promise<ChaosProcess>;
  /** Kills the API (kill -9 by default) and starts a new one on the same port. */
  restartApi: (signal?: NodeJS.Signals) => Promise<void>;
  /** Exits nobody asked for, and unhandled rejection / uncaught exception lines in any process's log. */
  crashes: () => { unexpectedExits: string[]; unhandled: string[] };
  /** Log lines of every process containing `text` (e.g. a recovered fault worth reporting). */
  countLines: (text: string) => number;
  stop: () => Promise<void>;
};

function launch(label: string, entry: string, env: NodeJS.ProcessEnv, readyText: string, onUnexpectedExit: (label: string, code: number | null, signal: string | null, tail: string) => void): Promise<ChaosProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', `${repoRoot}${entry}`], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk;
    if (output.length > 2_000_000) output = output.slice(-1_000_000);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  let expected = false;
  child.once('exit', (code, signal) => {
    if (!expected) onUnexpectedExit(label, code, signal, output.slice(-2000));
  });
  const managed: ChaosProcess = {
    label,
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      expected = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await Promise.race([exited, sleep(40_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const check = setInterval(() => {
      if (output.includes(readyText)) {
        clearInterval(check);
        resolve(managed);
      } else if (child.exitCode !== null || Date.now() - started > 180_000) {
        clearInterval(check);
        expected = true;
        child.kill('SIGKILL');
        reject(new Error(`${label} did not start within 180 s (exit code ${child.exitCode}):\n${output.slice(-3000)}`));
      }
    }, 50);
  });
}

/**
 * The production shape on the chaos suite's own services: one API process and `workers` worker
 * processes (as docker-compose runs them) on a fresh database of `serverUrl` and the given Redis.
 */
export async function startChaosStack(options: { serverUrl: string; redisUrl: string; workers?: number; env?: Record<string, string>; workerEnv?: Record<string, string> }): Promise<ChaosStack> {
  const databaseName = `agentq_chaos_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const server = postgres(options.serverUrl, { max: 1, onnotice: () => {} });
  await server.unsafe(`create database "${databaseName}"`);
  await server.end();
  const databaseUrl = Object.assign(new URL(options.serverUrl), { pathname: `/${databaseName}` }).toString();
  const port = await freeLoopbackPort();
  const admin = { email: `admin-${randomBytes(3).toString('hex')}@chaos.local`, password: 'admin-password-123' };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: `chaos-${randomBytes(3).toString('hex')}`,
    APP_SECRET: 'chaos-stack-secret-0123456789',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    FETCH_ALLOW_PRIVATE_NETWORKS: '1',
    DATABASE_POOL_SIZE: '10',
    LOG_LEVEL: 'info',
    ...options.env,
  };
  const unexpectedExits: string[] = [];
  const onUnexpectedExit = (label: string, code: number | null, signal: string | null, tail: string) =>
    unexpectedExits.push(`${label} exited (code ${code}, signal ${signal}): ${tail.split('\n').filter(Boolean).slice(-3).join(' | ').slice(0, 600)}`);
  const everyProcess: ChaosProcess[] = [];
  const startApi = async () => {
    const api = await launch('api', 'api/src/index.ts', { ...env, PORT: String(port), HOST: '127.0.0.1' }, 'api listening', onUnexpectedExit);
    everyProcess.push(api);
    return api;
  };
  const workers: ChaosProcess[] = [];
  let workerCount = 0;
  const startWorker = async () => {
    workerCount += 1;
    const worker = await launch(`worker-${workerCount}`, 'worker/src/index.ts', { ...env, ...options.workerEnv }, 'worker started', onUnexpectedExit);
    workers.push(worker);
    everyProcess.push(worker);
    return worker;
  };
  // All at once (two cores: starting them one by one doubles a scenario's setup); the API migrates the database.
  let api: ChaosProcess;
  [api] = await Promise.all([startApi(), ...Array.from({ length: options.workers ?? 2 }, () => startWorker())]);
  return {
    apiUrl: `http://127.0.0.1:${port}`,
    admin,
    api: () => api,
    workers,
    startWorker,
    restartApi: async (signal = 'SIGKILL') => {
      await api.stop(signal);
      api = await startApi();
    },
    crashes: () => ({
      unexpectedExits: [...unexpectedExits],
      unhandled: everyProcess.flatMap((managed) =>
        managed
          .output()
          .split('\n')
          .filter((line) => line.includes('unhandled rejection') || line.includes('uncaught exception') || line.includes('UnhandledPromiseRejection'))
          .map((line) => `${managed.label}: ${line.slice(0, 400)}`),
      ),
    }),
    countLines: (text) => everyProcess.reduce((sum, managed) => sum + managed.output().split('\n').filter((line) => line.includes(text)).length, 0),
    stop: async () => {
      await Promise.all([api, ...workers].map((managed) => managed.stop('SIGTERM')));
      const cleanup = postgres(options.serverUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists "${databaseName}" with (force)`).catch(() => {});
      await cleanup.end();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
