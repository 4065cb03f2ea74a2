import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows, type Database, type DbHandle } from '../db/client';
import { answerFeedback, chatFiles, chatSessions, messages, runs, users, type RunStatus } from '../db/schema';
import { newId } from '../ids';
import { bothTestDatabases } from '../testing';
import { createChatSession } from './chat';
import { acceptUpload } from './chat-files';
import { deleteIdleTemporaryChats, deleteIdleTemporaryChatsStatement, TEMPORARY_CHAT_IDLE_MS } from './temporary-chats';

describe.each(bothTestDatabases)('deleting temporary chats unused for a day, on %s', (_name, open) => {
  let database: DbHandle;
  const userId = newId('user');

  beforeAll(async () => {
    database = await open();
    await database.db.insert(users).values({ id: userId, email: `${userId}@test.local`, name: 'Sweeper', passwordHash: 'x', role: 'user' });
  }, 240_000);
  afterAll(() => database.close());

  /** A chat with a question, its answer's run in `status`, a rating and a file, last used `idleMs` ago. */
  async function chat(label: string, options: { temporary: boolean; idleMs: number; runStatus?: RunStatus }) {
    const { db } = database;
    const session = await createChatSession(db, userId, { title: label, temporary: options.temporary });
    const runId = newId('run');
    const questionId = newId('message');
    const answerId = newId('message');
    await db.insert(runs).values({ id: runId, kind: 'chat', userId, sessionId: session.id, replyToMessageId: questionId, status: options.runStatus ?? 'succeeded' });
    await db.insert(messages).values([
      { id: questionId, sessionId: session.id, role: 'user', parts: [{ type: 'text', text: label }], runId },
      { id: answerId, sessionId: session.id, role: 'assistant', parts: [{ type: 'text', text: 'ok' }], runId },
    ]);
    await db.insert(answerFeedback).values({ messageId: answerId, sessionId: session.id, userId, rating: 'up' });
    const upload = await acceptUpload(db, { sessionId: session.id, userId, name: `${label}.txt`, data: new TextEncoder().encode(label) });
    if (!upload.ok) throw new Error(upload.message);
    await db.update(chatSessions).set({ updatedAt: sql`now() - make_interval(secs => ${options.idleMs / 1000})` }).where(eq(chatSessions.id, session.id));
    return { sessionId: session.id, runId };
  }

  it('deletes old idle temporary chats with their messages, runs, ratings and files; never a regular chat, a recent one or one with a run going', async () => {
    const { db } = database;
    const day = TEMPORARY_CHAT_IDLE_MS;
    const old = await chat('old temporary', { temporary: true, idleMs: day + 60_000 });
    const older = await chat('older temporary', { temporary: true, idleMs: 3 * day });
    const recent = await chat('recent temporary', { temporary: true, idleMs: day - 60_000 });
    const regular = await chat('old regular', { temporary: false, idleMs: 30 * day });
    const queued = await chat('old temporary, run queued', { temporary: true, idleMs: 2 * day, runStatus: 'queued' });
    const running = await chat('old temporary, run running', { temporary: true, idleMs: 2 * day, runStatus: 'running' });
    const parked = await chat('old temporary, awaiting approval', { temporary: true, idleMs: 2 * day, runStatus: 'awaiting_approval' });
    const all = [old, older, recent, regular, queued, running, parked];
    const ids = all.map((entry) => entry.sessionId);

    expect(await deleteIdleTemporaryChats(db)).toBe(2);
    const kept = (await db.select({ id: chatSessions.id }).from(chatSessions).where(inArray(chatSessions.id, ids))).map((row) => row.id);
    expect(kept.sort()).toEqual([recent, regular, queued, running, parked].map((entry) => entry.sessionId).sort());
    const gone = [old.sessionId, older.sessionId];
    expect(await db.select({ id: messages.id }).from(messages).where(inArray(messages.sessionId, gone))).toEqual([]);
    expect(await db.select({ id: runs.id }).from(runs).where(inArray(runs.sessionId, gone))).toEqual([]);
    expect(await db.select({ id: chatFiles.id }).from(chatFiles).where(inArray(chatFiles.sessionId, gone))).toEqual([]);
    expect(await db.select({ id: answerFeedback.messageId }).from(answerFeedback).where(inArray(answerFeedback.sessionId, gone))).toEqual([]);
    // What stays keeps all it had.
    expect(await db.select({ id: runs.id }).from(runs).where(inArray(runs.sessionId, kept))).toHaveLength(5);
    expect(await deleteIdleTemporaryChats(db)).toBe(0);

    // Once its run has ended, an idle chat goes on the next sweep.
    await db.update(runs).set({ status: 'succeeded' }).where(eq(runs.id, running.runId));
    await db.update(chatSessions).set({ updatedAt: sql`now() - interval '2 days'` }).where(eq(chatSessions.id, running.sessionId));
    expect(await deleteIdleTemporaryChats(db)).toBe(1);
    expect(await db.select({ id: chatSessions.id }).from(chatSessions).where(eq(chatSessions.id, running.sessionId))).toEqual([]);
  });

  it('walks the partial index of temporary chats', async () => {
    const { db } = database;
    await db.execute(sql`analyze chat_sessions`);
    const plan = await db.transaction(async (tx) => {
      // The test tables are tiny: a sequential scan would win on cost, so rule it out to see which index the statement can use.
      await tx.execute(sql`set local enable_seqscan = off`);
      return JSON.stringify(await executeRows(tx as unknown as Database, sql`explain ${deleteIdleTemporaryChatsStatement()}`));
    });
    expect(plan).toContain('chat_sessions_temporary_idx');
  });
});
