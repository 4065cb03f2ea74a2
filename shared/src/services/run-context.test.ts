import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../db/client';
import { approvalGrants, llmModels, messages, runs, users } from '../db/schema';
import { newId } from '../ids';
import { openTestDb } from '../testing';
import { runSessionGrants, sessionGrants } from './approvals';
import { createChatSession, listRunSessionMessages, listSessionMessages, loadRunHistory, runHistory, startChatRun } from './chat';

// A worker reads a run's context by the run's id while it claims the run (worker/src/agent/load-run-setup.ts).
const databases: [string, () => Promise<DbHandle>][] = [
  ['PostgreSQL', openTestDb],
  [
    'PGlite',
    async () => {
      const handle = await createDb({ dataDir: 'memory://' });
      await handle.migrate();
      return handle;
    },
  ],
];

describe.each(databases)("a run's context by its id on %s", (_name, open) => {
  let database: DbHandle;
  beforeAll(async () => {
    database = await open();
  }, 240_000);
  afterAll(() => database.close());

  async function answeredSession(userId: string, question: string, answer: string) {
    const session = await createChatSession(database.db, userId, {});
    const { run } = await startChatRun(database.db, { userId, session, input: { content: question, enableTools: true, enableThinking: false } });
    await database.db.insert(messages).values({ id: newId('message'), sessionId: session.id, role: 'assistant', parts: [{ type: 'text', text: answer }], runId: run.id });
    await database.db.update(runs).set({ status: 'succeeded' }).where(eq(runs.id, run.id));
    return session;
  }

  it("is the run's own session's messages and grants, the same as read by the session", async () => {
    const userId = newId('user');
    await database.db.insert(users).values({ id: userId, email: `${userId}@test.local`, name: 'context', passwordHash: 'x' });
    const [model] = await database.db.select().from(llmModels).limit(1);
    if (!model) await database.db.insert(llmModels).values({ id: newId('model'), name: 'context test', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' });

    const mine = await answeredSession(userId, 'What is 6 * 7?', '42');
    const other = await answeredSession(userId, 'Another conversation', 'Another answer');
    await database.db.insert(approvalGrants).values([
      { sessionId: mine.id, toolName: 'fetch', grantedBy: userId },
      { sessionId: other.id, toolName: 'calculator', grantedBy: userId },
    ]);
    const { run } = await startChatRun(database.db, { userId, session: mine, input: { content: 'And times 2?', enableTools: true, enableThinking: false } });

    const byRun = await listRunSessionMessages(database.db, run.id);
    expect(byRun).toEqual(await listSessionMessages(database.db, mine.id));
    const history = runHistory(byRun, run);
    expect(history).toEqual(await loadRunHistory(database.db, run));
    expect(history.map((message) => (message.parts as { text: string }[])[0]!.text)).toEqual(['What is 6 * 7?', '42', 'And times 2?']);

    expect(await runSessionGrants(database.db, run.id)).toEqual(new Set(['fetch']));
    expect(await runSessionGrants(database.db, run.id)).toEqual(await sessionGrants(database.db, mine.id));
    // A run that is not there has no context (its claim reports it missing).
    expect(await listRunSessionMessages(database.db, 'run_missing')).toEqual([]);
    expect(await runSessionGrants(database.db, 'run_missing')).toEqual(new Set());
  });
});
