import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../services/errors';
import { getRun } from '../services/runs';
import { testDatabaseUrl } from '../testing';
import { createDb, executeRows } from './client';
import { users } from './schema';

/**
 * DATABASE_PREPARE=0 is the setting for PgBouncer in transaction mode (docs/scaling.md): a server
 * connection there is the client's for one transaction only, so a named prepared statement left on
 * it would be missing on the next. With it, nothing agentq runs may leave a named statement behind,
 * not even the queries drizzle `.prepare()`s (the hot ones) or the ones inside a transaction.
 */
async function namedStatementsAfterWork(prepare: boolean): Promise<number> {
  // One connection, so the statements we look for are on the session we ask.
  const database = await createDb({ url: testDatabaseUrl(), poolSize: 1, prepare });
  try {
    await database.db.select().from(users).where(eq(users.email, 'nobody@test.local'));
    await expect(getRun(database.db, 'run_missing')).rejects.toBeInstanceOf(NotFoundError);
    await database.db.transaction(async (tx) => {
      await tx.select({ id: users.id }).from(users).where(eq(users.id, 'usr_missing'));
    });
    const rows = await executeRows<{ count: number }>(database.db, sql`select count(*)::int as count from pg_prepared_statements`);
    return Number(rows[0]!.count);
  } finally {
    await database.close();
  }
}

describe('DATABASE_PREPARE (PgBouncer in transaction mode)', () => {
  it('0 leaves no named prepared statement on the server connection', async () => {
    expect(await namedStatementsAfterWork(false)).toBe(0);
  });

  it('1 (the default) prepares every statement, the hot queries included', async () => {
    expect(await namedStatementsAfterWork(true)).toBeGreaterThanOrEqual(3);
  });
});
