import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createJobWaiter, createQueues } from '@agentq/shared/queues';
import { createApiRedis, createWorkerRedis } from '@agentq/shared/redis';
import { RunEventHub } from '@agentq/shared/run-stream';
import type { Logger } from '@agentq/shared/logger';
import { createOidcProvider, createUser, startConfigCache, type OidcSettings } from '@agentq/shared/services';
import { openPrivateTestDb, openTestDb, randomPrefix, silentLogger, testDatabaseUrl, testRedisUrl, uniqueEmail } from '@agentq/shared/testing';
import { llmModels, type Database } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { createApp, type AppDeps } from './app';

/**
 * A model a test's chat runs can use that never becomes another test file's default: the test
 * database is shared by the files running in parallel, and the default is the oldest enabled model,
 * so this one is dated far in the future.
 */
export async function insertBackgroundModel(db: Database, name: string): Promise<string> {
  const id = newId('model');
  await db.insert(llmModels).values({ id, name, baseUrl: 'http://127.0.0.1:9/v1', modelId: 'scripted', createdAt: new Date('2999-01-01T00:00:00Z') });
  return id;
}

/** The fixed APP_SECRET of test apps, so tests can decrypt what the API stored. */
export const TEST_APP_SECRET = 'agentq-test-app-secret-0123456789';

/**
 * The real app on the real test database and Redis, with a queue prefix of its own. `configCache`
 * reads models, agents, tools and sessions through the per-process cache, as the API runtime does
 * (off by default: tests that write rows behind the services' back expect to see them).
 */
export async function createTestApp(
  options: {
    redisUrl?: string;
    sseHeartbeatSeconds?: number;
    metricsToken?: string;
    logger?: Logger;
    config?: Partial<AppDeps['config']>;
    allowPrivateNetworks?: boolean;
    configCache?: boolean;
    /** A database of its own (openPrivateTestDb) instead of the shared test database: for settings every user shares. */
    privateDatabase?: boolean;
    /** Single sign-on against a test's fake provider (infra/testing/fake-oidc-provider.ts). */
    oidc?: OidcSettings;
    /** Sees every statement the app sends to PostgreSQL (tests that count a path's statements). */
    onStatement?: (statement: string) => void;
  } = {},
) {
  const database = options.privateDatabase ? await openPrivateTestDb({ onStatement: options.onStatement }) : await openTestDb({ onStatement: options.onStatement });
  const redis = createApiRedis(options.redisUrl ?? testRedisUrl());
  redis.on('error', () => {});
  const prefix = randomPrefix('api');
  const queues = createQueues(redis, prefix);
  const jobs = createJobWaiter(options.redisUrl ?? testRedisUrl(), queues);
  const subscriber = createWorkerRedis(options.redisUrl ?? testRedisUrl());
  subscriber.on('error', () => {});
  const runEvents = new RunEventHub(subscriber, prefix);
  const cacheSubscriber = options.configCache ? createWorkerRedis(options.redisUrl ?? testRedisUrl()) : undefined;
  const configCache = cacheSubscriber ? await startConfigCache(database.db, { publisher: redis, subscriber: cacheSubscriber, prefix }) : undefined;
  const app = createApp({
    db: database.db,
    redis,
    queues,
    jobs,
    runEvents,
    logger: options.logger ?? silentLogger,
    oidc: options.oidc && createOidcProvider(options.oidc),
    config: {
      secureCookies: false,
      bodyLimitBytes: 64 * 1024,
      appSecret: TEST_APP_SECRET,
      sseHeartbeatSeconds: options.sseHeartbeatSeconds ?? 15,
      metricsToken: options.metricsToken,
      allowPrivateNetworks: options.allowPrivateNetworks,
      ...options.config,
    },
  });

  async function signUp(role: 'admin' | 'user' = 'user') {
    const email = uniqueEmail(role);
    const password = 'correct horse battery';
    const user = await createUser(database.db, { email, name: `Test ${role}`, password, role });
    const response = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    const cookie = response.headers.get('set-cookie')?.split(';')[0] ?? '';
    return { user, email, password, cookie, headers: { cookie, 'content-type': 'application/json' } };
  }

  return {
    app,
    db: database.db,
    redis,
    queues,
    runEvents,
    prefix,
    signUp,
    startWorker: (env: Record<string, string> = {}) => startWorkerProcess(prefix, env),
    configCache: configCache?.cache,
    close: async () => {
      await configCache?.close();
      cacheSubscriber?.disconnect();
      await jobs.close();
      subscriber.disconnect();
      await queues.close();
      redis.disconnect();
      await database.close();
    },
  };
}

/** A real worker process (worker/src/index.ts) on the test database and this app's queue prefix. */
export async function startWorkerProcess(prefix: string, env: Record<string, string> = {}) {
  const entry = fileURLToPath(new URL('../../worker/src/index.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, DATABASE_URL: testDatabaseUrl(), REDIS_URL: testRedisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'info', FETCH_ALLOW_PRIVATE_NETWORKS: '1', APP_SECRET: TEST_APP_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 30_000;
  while (!output.includes('worker started')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    output: () => output,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    },
  };
}
