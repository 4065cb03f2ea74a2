import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { createDb } from '@agentq/shared/db';
import { testRunKeyPrefix } from '@agentq/shared/testing';
import { dropRedisKeys } from './redis-prefix';

/** Server-level URL used to create and drop the per-run test database. */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A database of our own per test run, migrated, dropped afterwards: tests never touch other data.
 * The run's Redis keys (every randomPrefix of its tests) go with it.
 */
export default async function setup(project: TestProject) {
  const name = `agentq_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = postgres(TEST_SERVER_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const database = await createDb({ url: databaseUrl, poolSize: 1 });
  await database.migrate();
  await database.close();
  project.provide('databaseUrl', databaseUrl);
  project.provide('redisUrl', TEST_REDIS_URL);
  const redisKeyTag = randomBytes(4).toString('hex');
  project.provide('redisKeyTag', redisKeyTag);
  return async () => {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
    await dropRedisKeys(TEST_REDIS_URL, `${testRunKeyPrefix(redisKeyTag)}*`);
  };
}
