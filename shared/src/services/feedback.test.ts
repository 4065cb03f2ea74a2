import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../db/client';
import { eq } from 'drizzle-orm';
import { agents, answerFeedback, llmModels, messages, runs, users } from '../db/schema';
import { newId } from '../ids';
import { bothTestDatabases } from '../testing';
import { createChatSession } from './chat';
import { clearAnswerFeedback, feedbackListQuerySchema, feedbackSummary, listFeedback, rateAnswer, sessionFeedback } from './feedback';

describe.each(bothTestDatabases)('answer feedback on %s', (_name, open) => {
  let database: DbHandle;
  const userId = newId('user');

  beforeAll(async () => {
    database = await open();
    await database.db.insert(users).values({ id: userId, email: `${userId}@test.local`, name: 'Rater', passwordHash: 'x', role: 'user' });
  }, 240_000);
  afterAll(() => database.close());

  it('rates answers, pages every rating newest first with the counts, and takes a rating back', async () => {
    const session = await createChatSession(database.db, userId, {});
    const answers: string[] = [];
    for (let index = 0; index < 5; index++) {
      const id = newId('message');
      await database.db.insert(messages).values({ id, sessionId: session.id, role: 'assistant', parts: [{ type: 'text', text: `Answer ${index} ${'word '.repeat(index === 4 ? 100 : 1)}` }] });
      answers.push(id);
      await rateAnswer(database.db, session, id, { rating: index % 2 === 0 ? 'down' : 'up', comment: index === 0 ? 'off topic' : undefined });
    }
    expect((await sessionFeedback(database.db, session.id)).map((item) => item.messageId).sort()).toEqual([...answers].sort());

    const seen: string[] = [];
    let cursor: string | undefined;
    let counts: { up: number; down: number } | undefined;
    do {
      const page = await listFeedback(database.db, { rating: 'down', limit: 2, cursor });
      seen.push(...page.items.filter((item) => item.sessionId === session.id).map((item) => item.messageId));
      counts = page.counts;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([answers[4], answers[2], answers[0]]);
    expect(counts!.down).toBeGreaterThanOrEqual(3);
    expect(counts!.up).toBeGreaterThanOrEqual(2);

    const first = (await listFeedback(database.db, { rating: 'down', limit: 200 })).items.find((item) => item.messageId === answers[0]);
    expect(first).toMatchObject({ comment: 'off topic', userEmail: `${userId}@test.local`, userName: 'Rater', excerpt: 'Answer 0 word' });
    const long = (await listFeedback(database.db, { limit: 200 })).items.find((item) => item.messageId === answers[4]);
    expect(long!.excerpt).toHaveLength(240);
    expect(long!.excerpt.endsWith('…')).toBe(true);

    expect(await clearAnswerFeedback(database.db, session, answers[0]!)).toBe(true);
    expect(await clearAnswerFeedback(database.db, session, answers[0]!)).toBe(false);
    expect(await sessionFeedback(database.db, session.id)).toHaveLength(4);
  });

  it('counts ratings by the agent and model of the run that wrote the answer, and filters the list by them', async () => {
    const tag = newId('agent').slice(-8);
    const [agentA, agentB, model] = [newId('agent'), newId('agent'), newId('model')];
    await database.db.insert(llmModels).values({ id: model, name: `Model ${tag}`, baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' });
    await database.db.insert(agents).values([
      { id: agentA, name: `Agent A ${tag}`, modelId: model },
      { id: agentB, name: `Agent B ${tag}`, modelId: model },
    ]);
    const session = await createChatSession(database.db, userId, {});
    const answer = async (agentId: string, rating: 'up' | 'down') => {
      const runId = newId('run');
      await database.db.insert(runs).values({ id: runId, kind: 'chat', userId, sessionId: session.id, agentId, modelId: model, status: 'succeeded' });
      const id = newId('message');
      await database.db.insert(messages).values({ id, sessionId: session.id, role: 'assistant', runId, parts: [{ type: 'text', text: rating }] });
      await rateAnswer(database.db, session, id, { rating });
      return id;
    };
    const bad = [await answer(agentA, 'down'), await answer(agentA, 'down')];
    await answer(agentA, 'up');
    await answer(agentB, 'up');

    const summary = (await feedbackSummary(database.db)).filter((row) => row.modelId === model);
    expect(summary).toEqual([
      { agentId: agentA, agentName: `Agent A ${tag}`, modelId: model, modelName: `Model ${tag}`, up: 1, down: 2 },
      { agentId: agentB, agentName: `Agent B ${tag}`, modelId: model, modelName: `Model ${tag}`, up: 1, down: 0 },
    ]);

    const ofA = await listFeedback(database.db, { agentId: agentA, rating: 'down' });
    expect(ofA.items.map((item) => item.messageId)).toEqual([...bad].reverse());
    expect(ofA.counts).toEqual({ up: 1, down: 2 });
    expect((await listFeedback(database.db, { modelId: model })).counts).toEqual({ up: 2, down: 2 });
    expect((await listFeedback(database.db, { agentId: agentB })).items.map((item) => item.agentId)).toEqual([agentB]);
  });

  it('narrows the list, its counts and the summary to when the ratings were given', async () => {
    const tag = newId('agent').slice(-8);
    const [agent, model] = [newId('agent'), newId('model')];
    await database.db.insert(llmModels).values({ id: model, name: `Model ${tag}`, baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' });
    await database.db.insert(agents).values({ id: agent, name: `Agent ${tag}`, modelId: model });
    const session = await createChatSession(database.db, userId, {});
    const rated = async (rating: 'up' | 'down', at: string) => {
      const runId = newId('run');
      await database.db.insert(runs).values({ id: runId, kind: 'chat', userId, sessionId: session.id, agentId: agent, modelId: model, status: 'succeeded' });
      const id = newId('message');
      await database.db.insert(messages).values({ id, sessionId: session.id, role: 'assistant', runId, parts: [{ type: 'text', text: at }] });
      await rateAnswer(database.db, session, id, { rating });
      await database.db.update(answerFeedback).set({ updatedAt: new Date(at) }).where(eq(answerFeedback.messageId, id));
      return id;
    };
    const lastWeek = await rated('down', '2026-11-24T12:00:00Z');
    const monday = await rated('down', '2026-12-01T00:00:00Z');
    const sunday = await rated('up', '2026-12-07T23:59:59Z');
    await rated('up', '2026-12-08T00:00:00Z');

    const week = { agentId: agent, since: '2026-12-01T00:00:00Z', until: '2026-12-08T00:00:00Z' };
    const page = await listFeedback(database.db, week);
    expect(page.items.map((item) => item.messageId)).toEqual([sunday, monday]);
    expect(page.counts).toEqual({ up: 1, down: 1 });
    expect((await listFeedback(database.db, { agentId: agent, until: '2026-12-01T00:00:00Z' })).items.map((item) => item.messageId)).toEqual([lastWeek]);
    expect((await feedbackSummary(database.db, week)).filter((row) => row.agentId === agent)).toEqual([{ agentId: agent, agentName: `Agent ${tag}`, modelId: model, modelName: `Model ${tag}`, up: 1, down: 1 }]);
    expect((await feedbackSummary(database.db, { since: '2026-12-01T00:00:00+01:00' })).filter((row) => row.agentId === agent)).toEqual([expect.objectContaining({ up: 2, down: 1 })]);

    expect(feedbackListQuerySchema.safeParse({ since: '2026-12-08T00:00:00Z', until: '2026-12-01T00:00:00Z' }).error?.issues[0]).toMatchObject({ path: ['until'], message: 'The start (since) must be before the end (until)' });
    expect(feedbackListQuerySchema.safeParse({ since: 'last week' }).error?.issues[0]?.path).toEqual(['since']);
  });
});
