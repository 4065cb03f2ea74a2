import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../testing';
import { createDb, executeRows } from './client';
import { agentDocuments, runs, users } from './schema';

const EXPECTED_TABLES = [
  'users', 'sessions', 'api_tokens', 'audit_events', 'llm_models', 'agents', 'agent_tool_associations', 'agent_tools',
  'agent_tool_logs', 'chat_sessions', 'messages', 'runs', 'approvals', 'approval_grants', 'agent_documents', 'agent_document_revisions',
];

async function tableNames(db: Awaited<ReturnType<typeof createDb>>['db']) {
  const rows = await executeRows<{ table_name: string }>(db, sql`select table_name from information_schema.tables where table_schema = 'public'`);
  return rows.map((row) => row.table_name);
}

describe.each([
  ['PGlite', () => createDb({ dataDir: 'memory://' })],
  ['PostgreSQL', () => createDb({ url: testDatabaseUrl(), poolSize: 1 })],
])('migrations on %s', (_label, open) => {
  it('create every table, re-run as a no-op, and support full-text search and the one-active-run rule', async () => {
    const database = await open();
    try {
      await database.migrate();
      await database.migrate();
      expect(await tableNames(database.db)).toEqual(expect.arrayContaining(EXPECTED_TABLES));

      const userId = `usr_${Math.random().toString(36).slice(2)}`;
      await database.db.insert(users).values({ id: userId, email: `${userId}@test.local`, name: 'm', passwordHash: 'x' });
      await database.db.insert(agentDocuments).values({ id: `ad_${userId}`, userId, type: 'memory', title: 'Quarterly budget', content: 'The marketing budget grows.' });
      const hits = await database.db
        .select({ id: agentDocuments.id })
        .from(agentDocuments)
        .where(sql`${agentDocuments.searchVector} @@ websearch_to_tsquery('simple', 'budget') and ${agentDocuments.userId} = ${userId}`);
      expect(hits).toHaveLength(1);

      await database.db.insert(runs).values({ id: `run_a_${userId}`, kind: 'chat', userId, sessionId: `cs_${userId}`, status: 'running' });
      await expect(
        database.db.insert(runs).values({ id: `run_b_${userId}`, kind: 'chat', userId, sessionId: `cs_${userId}`, status: 'queued' }),
      ).rejects.toThrow();
    } finally {
      await database.close();
    }
  });
});
