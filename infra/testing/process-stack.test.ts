import { Redis } from 'ioredis';
import postgres from 'postgres';
import { afterAll, expect, it } from 'vitest';
import { ApiClient } from './api-client';
import { TEST_REDIS_URL, TEST_SERVER_URL } from './global-setup';
import { startProcessStack } from './process-stack';

const redis = new Redis(TEST_REDIS_URL);
const server = postgres(TEST_SERVER_URL, { max: 1, onnotice: () => {} });

const keysUnder = async (prefix: string) => (await redis.keys(`${prefix}:*`)).length;
const stackDatabases = async () => (await server`select datname from pg_database where datname like 'agentq_procs_%'`).map((row) => row.datname as string).sort();

afterAll(async () => {
  redis.disconnect();
  await server.end();
});

it('a stopped stack leaves neither its database nor its Redis keys behind', async () => {
  const stack = await startProcessStack({ workers: 1 });
  const databaseName = new URL(stack.databaseUrl).pathname.slice(1);
  try {
    const admin = await ApiClient.login(stack.apiUrl, stack.admin);
    const tool = await admin.post('/api/agent-tools', { name: 'Calc', slug: 'calc', type: 'calculator' });
    const executed = await admin.post(`/api/agent-tools/${tool.body.id}/execute`, { input: { expression: '6 * 7' } });
    expect(executed.body.result?.data?.result).toBe('42');
    expect(await keysUnder(stack.prefix)).toBeGreaterThan(0);
    expect(await stackDatabases()).toContain(databaseName);
  } finally {
    await stack.stop();
  }
  expect(await keysUnder(stack.prefix)).toBe(0);
  expect(await stackDatabases()).not.toContain(databaseName);
});

it('a stack whose worker cannot start stops what did start and drops its database', async () => {
  const before = await stackDatabases();
  // An out-of-range concurrency fails the worker's environment check: it exits before it is ready.
  await expect(startProcessStack({ workers: 1, workerEnv: { WORKER_CONCURRENCY: '0' } })).rejects.toThrow(/worker exited/);
  expect(await stackDatabases()).toEqual(before);
});
