import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../db/client';
import { approvalGrants, chatSessions, llmModels, messages, runs, users } from '../db/schema';
import { newId } from '../ids';
import { bothTestDatabases } from '../testing';
import { sessionGrants } from './approvals';
import { askInSession, claimChatRun, createChatSession, getChatSessionWithLastShown, lastShownMessageId, listSessionMessages, loadRunHistory, runHistory, settleChatRun, startChatRun } from './chat';
import { NotFoundError } from './errors';
import { getRun } from './runs';
import { transitionRun } from './run-lifecycle';

// A worker reads a run's context with its claim of the run (worker/src/processors/chat-turn.ts).
describe.each(bothTestDatabases)('chat runs on %s', (_name, open) => {
  let database: DbHandle;
  let userId: string;
  beforeAll(async () => {
    database = await open();
    userId = newId('user');
    await database.db.insert(users).values({ id: userId, email: `${userId}@test.local`, name: 'chat runs', passwordHash: 'x' });
    const [model] = await database.db.select().from(llmModels).limit(1);
    if (!model) await database.db.insert(llmModels).values({ id: newId('model'), name: 'chat runs test', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' });
  }, 240_000);
  afterAll(() => database.close());

  async function answeredSession(userId: string, question: string, answer: string) {
    const session = await createChatSession(database.db, userId, {});
    const { run } = await startChatRun(database.db, { userId, session, input: { content: question, enableTools: true, enableThinking: false } });
    await database.db.insert(messages).values({ id: newId('message'), sessionId: session.id, role: 'assistant', parts: [{ type: 'text', text: answer }], runId: run.id });
    await database.db.update(runs).set({ status: 'succeeded' }).where(eq(runs.id, run.id));
    return session;
  }

  it("claims a chat run with its context: its own session's messages and grants, the same as read by the session", async () => {
    const mine = await answeredSession(userId, 'What is 6 * 7?', '42');
    const other = await answeredSession(userId, 'Another conversation', 'Another answer');
    await database.db.insert(approvalGrants).values([
      { sessionId: mine.id, toolName: 'fetch', grantedBy: userId },
      { sessionId: other.id, toolName: 'calculator', grantedBy: userId },
    ]);
    // A version switch with microseconds: the claim's times must be the driver's (truncated to ms).
    const [answer] = await database.db.select().from(messages).where(and(eq(messages.sessionId, mine.id), eq(messages.role, 'assistant')));
    await database.db.execute(sql`update messages set selected_at = now() + interval '0.123456 seconds' where id = ${answer!.id}`);
    const { run } = await startChatRun(database.db, { userId, session: mine, input: { content: 'And times 2?', enableTools: true, enableThinking: false } });

    const claim = await claimChatRun(database.db, run.id, { withContext: true });
    expect(claim).toMatchObject({ claimed: true, firstStart: true, run: { id: run.id, status: 'running' } });
    expect(claim.run.startedAt).toBeInstanceOf(Date);
    expect(claim.context!.messages).toEqual(await listSessionMessages(database.db, mine.id));
    expect(claim.context!.messages.find((message) => message.id === answer!.id)!.selectedAt).toBeInstanceOf(Date);
    const history = runHistory(claim.context!.messages, claim.run);
    expect(history).toEqual(await loadRunHistory(database.db, run));
    expect(history.map((message) => (message.parts as { text: string }[])[0]!.text)).toEqual(['What is 6 * 7?', '42', 'And times 2?']);
    expect(claim.context!.grants).toEqual(new Set(['fetch']));
    expect(claim.context!.grants).toEqual(await sessionGrants(database.db, mine.id));

    // A retry's claim (no context) is not the first start; an ended run is not claimed and has no context; a missing one is NotFound.
    const again = await claimChatRun(database.db, run.id, { withContext: false });
    expect(again).toMatchObject({ claimed: true, firstStart: false });
    expect(again.context).toBeUndefined();
    await transitionRun(database.db, run.id, 'cancelled');
    const ended = await claimChatRun(database.db, run.id, { withContext: true });
    expect(ended).toMatchObject({ claimed: false, run: { status: 'cancelled' } });
    expect(ended.context).toBeUndefined();
    await expect(claimChatRun(database.db, 'run_missing', { withContext: true })).rejects.toBeInstanceOf(NotFoundError);
  });

  async function storedAnswers(runId: string) {
    const rows = await database.db.select().from(messages).where(eq(messages.runId, runId));
    return rows.filter((row) => row.role === 'assistant').map((row) => row.parts);
  }
  const fields = (finishReason: string | null, error: string | null = null) => ({ finishReason, error, hitStepLimit: false, steps: 1, usage: { outputTokens: 3 }, cost: null, checkpoint: { messages: [], steps: 1 } });

  it('settles a run in one statement: status, outcome, its answer (replacing an earlier one) and the session time, or nothing when the lifecycle refuses', async () => {
    const session = await createChatSession(database.db, userId, {});
    const { run } = await startChatRun(database.db, { userId, session, input: { content: 'Hello?', enableTools: true, enableThinking: false } });
    await transitionRun(database.db, run.id, 'running');
    // An earlier attempt's answer (a retried step) is replaced, not kept beside the new one.
    await database.db.insert(messages).values({ id: newId('message'), sessionId: session.id, role: 'assistant', parts: [{ type: 'text', text: 'Hel' }], runId: run.id });
    const [before] = await database.db.select().from(chatSessions).where(eq(chatSessions.id, session.id));

    expect(await settleChatRun(database.db, run, { status: 'succeeded', fields: fields('stop'), parts: [{ type: 'text', text: 'Hello!' }] })).toEqual({ moved: true });
    expect(await storedAnswers(run.id)).toEqual([[{ type: 'text', text: 'Hello!' }]]);
    expect(await getRun(database.db, run.id)).toMatchObject({ status: 'succeeded', finishReason: 'stop', steps: 1, usage: { outputTokens: 3 }, checkpoint: { steps: 1 }, finishedAt: expect.any(Date) });
    const [after] = await database.db.select().from(chatSessions).where(eq(chatSessions.id, session.id));
    expect(after!.updatedAt.getTime()).toBeGreaterThanOrEqual(before!.updatedAt.getTime());

    // A late attempt cannot turn it into a failure or replace its answer.
    expect(await settleChatRun(database.db, run, { status: 'failed', fields: fields(null, 'late'), parts: [{ type: 'text', text: 'Partial' }] })).toEqual({ moved: false, status: 'succeeded' });
    expect(await storedAnswers(run.id)).toEqual([[{ type: 'text', text: 'Hello!' }]]);
    expect(await getRun(database.db, run.id)).toMatchObject({ status: 'succeeded', error: null });
    expect(await settleChatRun(database.db, { id: 'run_missing', sessionId: session.id }, { status: 'succeeded', fields: fields('stop'), parts: [] })).toEqual({ moved: false, status: null });
  });

  it('refuses success for a run cancelled meanwhile, which then settles as cancelled with its partial answer', async () => {
    const session = await createChatSession(database.db, userId, {});
    const { run } = await startChatRun(database.db, { userId, session, input: { content: 'Count to ten', enableTools: true, enableThinking: false } });
    await transitionRun(database.db, run.id, 'running');
    await transitionRun(database.db, run.id, 'cancelled', { finishReason: 'cancelled' });
    const partial = [{ type: 'text', text: '1, 2, 3' }];
    expect(await settleChatRun(database.db, run, { status: 'succeeded', fields: fields('stop'), parts: partial })).toEqual({ moved: false, status: 'cancelled' });
    expect(await storedAnswers(run.id)).toEqual([]);
    expect(await settleChatRun(database.db, run, { status: 'cancelled', fields: fields('cancelled'), parts: partial })).toEqual({ moved: true });
    expect(await storedAnswers(run.id)).toEqual([partial]);
    expect(await getRun(database.db, run.id)).toMatchObject({ status: 'cancelled', finishReason: 'cancelled', steps: 1 });
    // No parts, no message.
    const empty = await startChatRun(database.db, { userId, session: await createChatSession(database.db, userId, {}), input: { content: 'Quiet', enableTools: true, enableThinking: false } });
    expect(await settleChatRun(database.db, empty.run, { status: 'failed', fields: fields(null, 'no content'), parts: [] })).toEqual({ moved: true });
    expect(await storedAnswers(empty.run.id)).toEqual([]);
    expect(await getRun(database.db, empty.run.id)).toMatchObject({ status: 'failed', error: 'no content' });
  });
  it("reads the owner's session and the shown branch's last message in one statement, as the two reads do apart", async () => {
    const session = await createChatSession(database.db, userId, {});
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
    const id = (name: string) => `${session.id}_${name}`;
    const run = newId('run');
    // q1 → a1 (stored without a parent: it follows its run's question) and a1b (a regenerated version);
    // q2 follows a1b; then a1 is picked again, so the branch shown ends at a1.
    await database.db.insert(runs).values({ id: run, kind: 'chat', userId, sessionId: session.id, replyToMessageId: id('q1'), status: 'succeeded' });
    await database.db.insert(messages).values([
      { id: id('q1'), sessionId: session.id, role: 'user', parts: [], createdAt: at(1) },
      { id: id('a1'), sessionId: session.id, role: 'assistant', parts: [], runId: run, createdAt: at(2) },
      { id: id('a1b'), sessionId: session.id, role: 'assistant', parts: [], parentId: id('q1'), createdAt: at(3) },
      { id: id('q2'), sessionId: session.id, role: 'user', parts: [], parentId: id('a1b'), createdAt: at(4) },
    ]);
    const both = async () => [(await getChatSessionWithLastShown(database.db, session.id, userId)).lastShownMessageId, await lastShownMessageId(database.db, session.id)];
    expect(await both()).toEqual([id('q2'), id('q2')]);
    await database.db.update(messages).set({ selectedAt: at(5) }).where(eq(messages.id, id('a1')));
    expect(await both()).toEqual([id('a1'), id('a1')]);
    expect((await getChatSessionWithLastShown(database.db, session.id, userId)).session).toMatchObject({ id: session.id, userId });

    const empty = await createChatSession(database.db, userId, {});
    expect((await getChatSessionWithLastShown(database.db, empty.id, userId)).lastShownMessageId).toBeNull();
    await expect(getChatSessionWithLastShown(database.db, session.id, newId('user'))).rejects.toBeInstanceOf(NotFoundError);
  });

  it("asks the first question of a session created here, and of one changed elsewhere as its read says: after the shown branch's last message, the owner's only", async () => {
    const input = (content: string) => ({ content, enableTools: true, enableThinking: false });
    const questionOf = async (runId: string) => (await database.db.select().from(messages).where(eq(messages.runId, runId)))[0]!;
    const sessionRow = async (id: string) => (await database.db.select().from(chatSessions).where(eq(chatSessions.id, id)))[0]!;

    // Unused since it was created: the question starts the thread and names the session.
    const fresh = await createChatSession(database.db, userId, {});
    const first = await askInSession(database.db, { userId, sessionId: fresh.id, input: input('How tall is Mount Fuji?') });
    expect(first).toMatchObject({ created: true, run: { sessionId: fresh.id, userId, status: 'queued' } });
    expect(await questionOf(first.run.id)).toMatchObject({ sessionId: fresh.id, role: 'user', parentId: null, parts: [{ type: 'text', text: 'How tall is Mount Fuji?' }] });
    expect((await sessionRow(fresh.id)).title).toBe('How tall is Mount Fuji?');

    // Someone else's session: not found, and nothing stored, though this process created it.
    const others = await createChatSession(database.db, userId, {});
    const stranger = newId('user');
    await database.db.insert(users).values({ id: stranger, email: `${stranger}@test.local`, name: 'stranger', passwordHash: 'x' });
    await expect(askInSession(database.db, { userId: stranger, sessionId: others.id, input: input('mine now?') })).rejects.toBeInstanceOf(NotFoundError);
    expect(await database.db.select().from(messages).where(eq(messages.sessionId, others.id))).toEqual([]);

    // Changed elsewhere (another API process): a question and its answer, and a name the user gave it.
    // The remembered session is refused by its own statement, and the question follows the answer.
    const changed = await createChatSession(database.db, userId, {});
    const earlierRun = newId('run');
    await database.db.insert(runs).values({ id: earlierRun, kind: 'chat', userId, sessionId: changed.id, status: 'succeeded' });
    await database.db.insert(messages).values([
      { id: `${changed.id}_q`, sessionId: changed.id, role: 'user', parts: [], runId: earlierRun, createdAt: new Date(Date.now() - 2000) },
      { id: `${changed.id}_a`, sessionId: changed.id, role: 'assistant', parts: [], runId: earlierRun, parentId: `${changed.id}_q`, createdAt: new Date(Date.now() - 1000) },
    ]);
    await database.db.update(chatSessions).set({ title: 'Named by me', titleSetByUser: true }).where(eq(chatSessions.id, changed.id));
    const followUp = await askInSession(database.db, { userId, sessionId: changed.id, input: input('And in feet?') });
    expect(await questionOf(followUp.run.id)).toMatchObject({ sessionId: changed.id, parentId: `${changed.id}_a` });
    expect((await sessionRow(changed.id)).title).toBe('Named by me');

    // Renamed elsewhere but still empty: the run is stored and the user's name stays.
    const renamed = await createChatSession(database.db, userId, {});
    await database.db.update(chatSessions).set({ title: 'My trip', titleSetByUser: true }).where(eq(chatSessions.id, renamed.id));
    const named = await askInSession(database.db, { userId, sessionId: renamed.id, input: input('Plan a day in Kyoto') });
    expect(await questionOf(named.run.id)).toMatchObject({ parentId: null });
    expect((await sessionRow(renamed.id)).title).toBe('My trip');

    // Deleted elsewhere: not found.
    const deleted = await createChatSession(database.db, userId, {});
    await database.db.delete(chatSessions).where(eq(chatSessions.id, deleted.id));
    await expect(askInSession(database.db, { userId, sessionId: deleted.id, input: input('hello?') })).rejects.toBeInstanceOf(NotFoundError);
  });
});
