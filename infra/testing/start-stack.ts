import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { freePort } from '../scripts/redis-child';
import { dropRedisPrefix } from './redis-prefix';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export type Stack = {
  url: string;
  databaseUrl: string;
  admin: { email: string; password: string };
  /** Creates a user through the admin API and returns its credentials. */
  createUser: (role?: 'admin' | 'user') => Promise<{ email: string; password: string; id: string }>;
  /** Output of the server process so far (for failure messages). */
  logs: () => string;
  stop: () => Promise<void>;
};

/** The stacks of this test process that have not been stopped, for failure reports. */
const liveStacks = new Set<Stack>();

/** Requests a page repeats on a timer (the approvals badge): they would fill the tail and say nothing. */
const POLLING = /"route":"\/api\/approvals\/count".*"status":200/;

/** The last `chars` of every running stack's output, polling left out: what a failed browser test prints (tests/setup.ts). */
export function liveStackLogs(chars = 6000): string[] {
  return [...liveStacks].map((stack) => {
    const output = stack
      .logs()
      .split('\n')
      .filter((line) => !POLLING.test(line))
      .join('\n');
    return `--- ${stack.url} (last ${chars} characters of its output, without badge polling) ---\n${output.slice(-chars)}`;
  });
}

/**
 * Starts the real all-in-one server (`infra/scripts/start.ts`, built web app) as a child process
 * on a free port, with a database of its own on the test PostgreSQL and a private queue prefix.
 */
export async function startStack(options: { env?: Record<string, string> | ((url: string) => Record<string, string>) } = {}): Promise<Stack> {
  if (!existsSync(`${repoRoot}web/build/handler.js`)) throw new Error('web is not built: run `npm run build -w web` first');
  const databaseName = `agentq_stack_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const server = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  await server.unsafe(`create database "${databaseName}"`);
  const databaseUrl = Object.assign(new URL(SERVER_URL), { pathname: `/${databaseName}` }).toString();
  const port = await freePort();
  const queuePrefix = `aqs-${randomBytes(4).toString('hex')}`;
  const admin = { email: `admin-${randomBytes(3).toString('hex')}@test.local`, password: 'admin-password-123' };
  const url = `http://127.0.0.1:${port}`;
  // A function when the env names the stack's own URL (PUBLIC_ORIGIN for single sign-on's redirect URI).
  const extraEnv = typeof options.env === 'function' ? options.env(url) : options.env;
  const child = spawn(process.execPath, ['--import', 'tsx', `${repoRoot}infra/scripts/start.ts`], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      APP_SECRET: randomBytes(24).toString('hex'),
      FETCH_ALLOW_PRIVATE_NETWORKS: '1',
      // Tests bring their own fake model; the demo model would become the default agent's model.
      DEMO_MODEL: '0',
      // Tests create the tools they need.
      STARTER_TOOLS: '0',
      // Only printed when a test fails (liveStackLogs): enough to tell a stuck run from a stale page.
      LOG_LEVEL: 'info',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));

  const stop = async () => {
    liveStacks.delete(stack);
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await server.unsafe(`drop database if exists "${databaseName}" with (force)`).catch(() => {});
    await server.end();
    await dropRedisPrefix(extraEnv?.REDIS_URL ?? REDIS_URL, queuePrefix).catch(() => {});
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    }
    const ready = await fetch(`${url}/api/ready`).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`server not ready within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  let adminCookie: string | undefined;
  async function adminHeaders() {
    if (!adminCookie) {
      const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(admin) });
      adminCookie = login.headers.get('set-cookie')?.split(';')[0];
    }
    return { cookie: adminCookie ?? '', 'content-type': 'application/json' };
  }

  const stack: Stack = {
    url,
    databaseUrl,
    admin,
    logs: () => output,
    createUser: async (role = 'user') => {
      const credentials = { email: `${role}-${randomBytes(4).toString('hex')}@test.local`, password: 'user-password-123' };
      const response = await fetch(`${url}/api/users`, { method: 'POST', headers: await adminHeaders(), body: JSON.stringify({ ...credentials, name: `Test ${role}`, role }) });
      if (response.status !== 201) throw new Error(`createUser failed: ${response.status} ${await response.text()}`);
      const { id } = (await response.json()) as { id: string };
      return { ...credentials, id };
    },
    stop,
  };
  liveStacks.add(stack);
  return stack;
}
