import { createDb, type DbHandle } from '@agentq/shared/db';
import { createChatSession, createModel, createUser, createUserInputSchema, startChatRun, startRunInputSchema } from '@agentq/shared/services';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgresBin, startPrivatePostgres, type PrivatePostgres } from './private-postgres';

/**
 * Runs stored at once share the commit lane: all but the first commit without waiting for their
 * WAL flush, and the API answers 202 only once their `durable` resolved (the lane's barrier). A
 * PostgreSQL crash right after must keep every run so acknowledged, while a commit nobody flushed
 * is lost: the crash really drops unflushed WAL, so the test can tell a barrier from none.
 */
const bin = findPostgresBin();
let server: PrivatePostgres;
let database: DbHandle;

beforeAll(async () => {
  if (!bin) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) are required');
  // The WAL writer writes an asynchronous commit out within wal_writer_delay (200 ms by default):
  // ten seconds (the maximum) leaves the crash right after the control commit to decide.
  server = await startPrivatePostgres(bin, { wal_writer_delay: '10s' });
  database = await createDb({ url: server.serverUrl, poolSize: 8 });
  await database.migrate();
}, 120_000);

afterAll(async () => {
  await database?.close();
  server?.dispose();
});

describe('run enqueue durability', () => {
  it('keeps every run whose flush resolved through a PostgreSQL crash; an unflushed commit is lost', async () => {
    const user = await createUser(database.db, createUserInputSchema.parse({ email: 'durable@test.local', name: 'Durable', password: 'durable-password-1', role: 'user' }));
    await createModel(database.db, { name: 'm', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' }, 'enqueue-durability-secret-0123');
    // Every crash must keep every acknowledged run. It must also drop the control commit, or this
    // test could not fail when the barrier does nothing; the crash comes right after the control
    // (server.crash, not pg_ctl's start-up), and is repeated should something have written the WAL
    // out first anyway.
    let controlLost = false;
    for (let attempt = 0; attempt < 4 && !controlLost; attempt++) {
      const sessions = await Promise.all(Array.from({ length: 24 }, () => createChatSession(database.db, user.id, {})));
      // Stored at once, as concurrent requests are: their flushes are shared.
      const started = await Promise.all(
        sessions.map((session, index) => startChatRun(database.db, { userId: user.id, session, input: startRunInputSchema.parse({ content: `question ${index}` }) })),
      );
      await Promise.all(started.map(({ durable }) => durable));
      // The control: committed and visible, but never flushed.
      await database.db.execute(sql`update chat_sessions set title = 'unflushed' where id = ${sessions[0]!.id} and set_config('synchronous_commit', 'off', true) is not null`);
      const [visible] = (await database.db.execute(sql`select title from chat_sessions where id = ${sessions[0]!.id}`)) as unknown as { title: string }[];
      expect(visible!.title).toBe('unflushed');

      await server.crash();
      await database.close();
      server.start();
      database = await createDb({ url: server.serverUrl, poolSize: 8 });

      const runIds = started.map(({ run }) => run.id);
      const stored = (await database.db.execute(sql`
        select r.id, r.status, m.parts from runs r join messages m on m.id = r.reply_to_message_id where r.id in (${sql.join(runIds.map((id) => sql`${id}`), sql`, `)})`)) as unknown as {
        id: string;
        status: string;
        parts: { text: string }[];
      }[];
      expect(stored.map((row) => row.id).sort()).toEqual([...runIds].sort());
      expect(stored.every((row) => row.status === 'queued')).toBe(true);
      expect(stored.map((row) => row.parts[0]!.text).sort()).toEqual(sessions.map((_, index) => `question ${index}`).sort());
      const [control] = (await database.db.execute(sql`select title from chat_sessions where id = ${sessions[0]!.id}`)) as unknown as { title: string }[];
      controlLost = control!.title !== 'unflushed';
    }
    expect(controlLost, 'no crash dropped a commit nobody flushed: this test could not tell a flush from none').toBe(true);
  }, 120_000);
});
