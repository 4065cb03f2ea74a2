import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
import { createDb, type DbHandle, type DbOptions } from '../db/client';
import { createLogger } from '../logger';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    /** Names this test run's Redis keys (testRunKeyPrefix), which its global teardown removes. */
    redisKeyTag: string;
  }
}

/** The migrated per-run test database (made by infra/testing/global-setup.ts). */
export function testDatabaseUrl(): string {
  return inject('databaseUrl');
}

export function testRedisUrl(): string {
  return inject('redisUrl');
}

/** What every Redis key prefix of one test run starts with: its global teardown removes the keys under it. */
export const testRunKeyPrefix = (tag: string): string => `aqt-${tag}-`;

/** A fresh key prefix so each test's queues and streams are its own on the shared Redis. */
export function randomPrefix(label = 'test'): string {
  return `${testRunKeyPrefix(inject('redisKeyTag'))}${label}-${randomBytes(4).toString('hex')}`;
}

export function openTestDb(options: Pick<DbOptions, 'onStatement'> = {}): Promise<DbHandle> {
  return createDb({ url: testDatabaseUrl(), poolSize: 4, ...options });
}

/**
 * A migrated PostgreSQL database of its own, dropped on close: for tests that change what every user
 * shares (such as the default usage limits), which the shared test database's other files would feel.
 */
export async function openPrivateTestDb(options: Pick<DbOptions, 'onStatement'> = {}): Promise<DbHandle & { url: string }> {
  const name = `agentq_private_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const url = Object.assign(new URL(testDatabaseUrl()), { pathname: `/${name}` }).toString();
  const server = postgres(testDatabaseUrl(), { max: 1, onnotice: () => {} });
  await server.unsafe(`create database "${name}"`);
  const handle = await createDb({ url, poolSize: 4, ...options });
  await handle.migrate();
  return {
    ...handle,
    url,
    close: async () => {
      await handle.close();
      await server.unsafe(`drop database if exists "${name}" with (force)`).catch(() => {});
      await server.end({ timeout: 5 });
    },
  };
}

/** A fresh, migrated embedded PGlite in memory: the database of the all-in-one `npm start`. */
export async function openEmbeddedTestDb(): Promise<DbHandle> {
  const handle = await createDb({ dataDir: 'memory://' });
  await handle.migrate();
  return handle;
}

/** Both databases the product runs on, for `describe.each`: the test PostgreSQL and an embedded PGlite. */
export const bothTestDatabases: [name: string, open: () => Promise<DbHandle>][] = [
  ['PostgreSQL', openTestDb],
  ['PGlite', openEmbeddedTestDb],
];

export const silentLogger = createLogger({ level: 'silent' });

/** A unique email for a test user. */
export function uniqueEmail(label = 'user'): string {
  return `${label}-${randomBytes(4).toString('hex')}@test.local`;
}
export { startTestMcpServer, type TestMcpServer } from '../tools/mcp/test-server';
export { startPetstoreServer, petstoreSpec, type PetstoreServer } from '../tools/openapi/test-server';
export { FAKE_SEARCH_KEY, startFakeSearchProvider, type FakeSearchProvider } from '../tools/web-search/test-server';
export * from './redis-server';
export { pdfWithPages } from './pdf';
