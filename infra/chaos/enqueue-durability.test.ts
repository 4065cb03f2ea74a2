import { createDb, type DbHandle } from '@agentq/shared/db';
import { createChatSession, createModel, createTool, createUser, createUserInputSchema, draftToolRun, executeTool, startChatRun, startRunInputSchema } from '@agentq/shared/services';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgresBin, startPrivatePostgres, type PrivatePostgres } from './private-postgres';

/**
 * Writes made at once share a commit lane: all but the first commit without waiting for their WAL
 * flush, and nothing is acknowledged before their `durable` resolved (the lane's barrier): a run's
 * 202, a standalone execution's result. A PostgreSQL crash right after must keep every write so
 * acknowledged, while a commit nobody flushed is lost: the crash really drops unflushed WAL, so the
 * test can tell a barrier from none.
 */
const bin = findPostgresBin();
let server: PrivatePostgres;
let database: DbHandle;
let userId: string;

beforeAll(async () => {
  if (!bin) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) are required');
  // The WAL writer writes an asynchronous commit out within wal_writer_delay (200 ms by default):
  // ten seconds (the maximum) leaves the crash right after the control commit to decide.
  server = await startPrivatePostgres(bin, { wal_writer_delay: '10s' });
  database = await createDb({ url: server.serverUrl, poolSize: 8 });
  await database.migrate();
  userId = (await createUser(database.db, createUserInputSchema.parse({ email: 'durable@test.local', name: 'Durable', password: 'durable-password-1', role: 'user' }))).id;
}, 120_000);

afterAll(async () => {
  await database?.close();
  server?.dispose();
});

/**
 * Makes 24 writes at once (`acknowledge` resolves once each may be acknowledged), commits a control
 * nobody flushes, crashes PostgreSQL and hands the restarted database to `check`. Every crash must
 * keep every acknowledged write. It must also drop the control, or the test could not fail when the
 * barrier does nothing: the crash comes right after the control (server.crash, not pg_ctl's
 * start-up), and is repeated should something have written the WAL out first anyway.
 */
async function crashRightAfter<T>(acknowledge: () => Promise<T>, check: (acknowledged: T) => Promise<void>) {
  let controlLost = false;
  for (let attempt = 0; attempt < 4 && !controlLost; attempt++) {
    const control = await createChatSession(database.db, userId, {});
    const acknowledged = await acknowledge();
    // The control: committed and visible, but never flushed.
    await database.db.execute(sql`update chat_sessions set title = 'unflushed' where id = ${control.id} and set_config('synchronous_commit', 'off', true) is not null`);
    const [visible] = (await database.db.execute(sql`select title from chat_sessions where id = ${control.id}`)) as unknown as { title: string }[];
    expect(visible!.title).toBe('unflushed');

    await server.crash();
    await database.close();
    server.start();
    database = await createDb({ url: server.serverUrl, poolSize: 8 });

    await check(acknowledged);
    const [after] = (await database.db.execute(sql`select title from chat_sessions where id = ${control.id}`)) as unknown as { title: string }[];
    controlLost = after!.title !== 'unflushed';
  }
  expect(controlLost, 'no crash dropped a commit nobody flushed: this test could not tell a flush from none').toBe(true);
}

const idList = (ids: string[]) => sql.join(ids.map((id) => sql`${id}`), sql`, `);

describe('durability of the commit lane through a PostgreSQL crash', () => {
  it('keeps every run whose flush resolved (the 202)', async () => {
    await createModel(database.db, { name: 'm', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' }, 'enqueue-durability-secret-0123');
    await crashRightAfter(
      async () => {
        const sessions = await Promise.all(Array.from({ length: 24 }, () => createChatSession(database.db, userId, {})));
        // Stored at once, as concurrent requests are: their flushes are shared.
        const started = await Promise.all(
          sessions.map((session, index) => startChatRun(database.db, { userId, session, input: startRunInputSchema.parse({ content: `question ${index}` }) })),
        );
        await Promise.all(started.map(({ durable }) => durable));
        return started.map(({ run }, index) => ({ runId: run.id, question: `question ${index}` }));
      },
      async (acknowledged) => {
        const stored = (await database.db.execute(sql`
          select r.id, r.status, m.parts from runs r join messages m on m.id = r.reply_to_message_id where r.id in (${idList(acknowledged.map(({ runId }) => runId))})`)) as unknown as {
          id: string;
          status: string;
          parts: { text: string }[];
        }[];
        expect(stored.map((row) => row.id).sort()).toEqual(acknowledged.map(({ runId }) => runId).sort());
        expect(stored.every((row) => row.status === 'queued')).toBe(true);
        expect(stored.map((row) => row.parts[0]!.text).sort()).toEqual(acknowledged.map(({ question }) => question).sort());
      },
    );
  }, 120_000);

  it('keeps every standalone execution whose result was returned, with its log', async () => {
    const calculator = await createTool(database.db, { name: 'Calc', slug: 'calc', type: 'calculator', config: {}, description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, sortOrder: 0 });
    await crashRightAfter(
      async () => {
        // What workers do for a synchronous POST /api/agent-tools/:id/execute: the run is inserted
        // ended, with the call's log, once the call is done; the result is returned after that.
        const drafts = Array.from({ length: 24 }, (_, index) => draftToolRun({ userId, toolId: calculator.id, input: { expression: `${index} * 2` } }));
        const results = await Promise.all(
          drafts.map((draft) =>
            executeTool(database.db, {
              tool: calculator,
              input: draft.options.input,
              draft,
              settlesRun: true,
              context: { userId, runId: draft.id, sessionId: null, toolCallId: 'standalone', allowPrivateNetworks: false, services: { db: database.db } },
            }),
          ),
        );
        expect(results.every((result) => result.success && result.runSettled)).toBe(true);
        return drafts.map((draft, index) => ({ runId: draft.id, answer: String(index * 2) }));
      },
      async (acknowledged) => {
        const stored = (await database.db.execute(sql`
          select r.id, r.status, r.result, l.status as log_status from runs r join agent_tool_logs l on l.run_id = r.id where r.id in (${idList(acknowledged.map(({ runId }) => runId))})`)) as unknown as {
          id: string;
          status: string;
          result: { data: { result: string } };
          log_status: string;
        }[];
        expect(stored.map((row) => row.id).sort()).toEqual(acknowledged.map(({ runId }) => runId).sort());
        expect(stored.every((row) => row.status === 'succeeded' && row.log_status === 'success')).toBe(true);
        expect(Object.fromEntries(stored.map((row) => [row.id, row.result.data.result]))).toEqual(Object.fromEntries(acknowledged.map(({ runId, answer }) => [runId, answer])));
      },
    );
  }, 120_000);
});
