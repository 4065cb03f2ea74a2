import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../testing';
import { createDb } from './client';

/** Connections open under `applicationName`, as the server sees them. */
async function openConnections(applicationName: string): Promise<number> {
  const observer = postgres(testDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const [row] = await observer`select count(*)::int as count from pg_stat_activity where application_name = ${applicationName}`;
    return Number(row!.count);
  } finally {
    await observer.end({ timeout: 5 });
  }
}

/** A database URL whose connections carry a name of their own, telling them apart from every other test's on the same server. */
function namedUrl(): { url: string; applicationName: string } {
  const applicationName = `agentq-warm-${randomBytes(4).toString('hex')}`;
  const url = new URL(testDatabaseUrl());
  url.searchParams.set('application_name', applicationName);
  return { url: url.toString(), applicationName };
}

describe('DbHandle.warm (DATABASE_POOL_WARM)', () => {
  it('opens every connection of the pool and the commit lane ahead of the first burst, and they stay open', async () => {
    const { url, applicationName } = namedUrl();
    const database = await createDb({ url, poolSize: 4 });
    try {
      expect(await openConnections(applicationName)).toBe(0); // postgres.js connects lazily
      await database.warm();
      // The pool's four and the commit lane's one (commit-lane.ts).
      expect(await openConnections(applicationName)).toBe(5);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await openConnections(applicationName)).toBe(5);
    } finally {
      await database.close();
    }
  });

  it('opens nothing when turned off: connections come on first use', async () => {
    const { url, applicationName } = namedUrl();
    const database = await createDb({ url, poolSize: 4, warmPool: false });
    try {
      await database.warm();
      expect(await openConnections(applicationName)).toBe(0);
      await database.db.execute(sql`select 1`);
      expect(await openConnections(applicationName)).toBe(1);
    } finally {
      await database.close();
    }
  });
});
