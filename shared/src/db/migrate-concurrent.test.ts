import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../testing';
import { createDb, executeRows } from './client';

const admin = postgres(testDatabaseUrl(), { max: 1, onnotice: () => {} });
const name = `agentq_migrate_${process.pid}_${Date.now()}`;
const url = (() => {
  const parsed = new URL(testDatabaseUrl());
  parsed.pathname = `/${name}`;
  return parsed.toString();
})();

beforeAll(async () => {
  await admin.unsafe(`create database ${name}`);
});
afterAll(async () => {
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
});

describe('migrations started by several processes at once (API replicas booting on a new database)', () => {
  it('all succeed, and the schema is applied once', async () => {
    const handles = await Promise.all(Array.from({ length: 4 }, () => createDb({ url, poolSize: 2, warmPool: false })));
    try {
      const results = await Promise.allSettled(handles.map((handle) => handle.migrate()));
      expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);
      const journal = JSON.parse(readFileSync(new URL('../../drizzle/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] };
      const applied = await executeRows<{ count: string }>(handles[0]!.db, sql`select count(*)::text as count from drizzle.__drizzle_migrations`);
      expect(Number(applied[0]!.count)).toBe(journal.entries.length);
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
    }
  });
});
