import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { afterAll, expect, it } from 'vitest';
import type { TestProject } from 'vitest/node';
import { testRunKeyPrefix } from '@agentq/shared/testing';
import setup, { TEST_REDIS_URL, TEST_SERVER_URL } from './global-setup';

const redis = new Redis(TEST_REDIS_URL);
const server = postgres(TEST_SERVER_URL, { max: 1, onnotice: () => {} });

afterAll(async () => {
  redis.disconnect();
  await server.end();
});

it("a test run's teardown drops its database and its Redis keys, and leaves another run's keys alone", async () => {
  const provided = new Map<string, unknown>();
  const teardown = await setup({ provide: (key: string, value: unknown) => provided.set(key, value) } as unknown as TestProject);
  const databaseName = new URL(String(provided.get('databaseUrl'))).pathname.slice(1);
  const ownKey = `${testRunKeyPrefix(String(provided.get('redisKeyTag')))}queue-${randomBytes(4).toString('hex')}:tool-executions:1`;
  const otherKey = `${testRunKeyPrefix(randomBytes(4).toString('hex'))}queue-${randomBytes(4).toString('hex')}:tool-executions:1`;
  await redis.set(ownKey, '1');
  await redis.set(otherKey, '1');
  try {
    expect((await server`select 1 from pg_database where datname = ${databaseName}`).length).toBe(1);
    await teardown();
    expect(await redis.exists(ownKey)).toBe(0);
    expect(await redis.exists(otherKey)).toBe(1);
    expect((await server`select 1 from pg_database where datname = ${databaseName}`).length).toBe(0);
  } finally {
    await redis.del(ownKey, otherKey);
  }
});
