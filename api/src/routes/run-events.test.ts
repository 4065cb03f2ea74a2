import { chatSessions, messages, runs } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { RunEventPublisher, runStreamKeys } from '@agentq/shared/run-stream';
import { createWorkerRedis } from '@agentq/shared/redis';
import { testRedisUrl } from '@agentq/shared/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, insertBackgroundModel } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let owner: Awaited<ReturnType<typeof t.signUp>>;
const publisherRedis = createWorkerRedis(testRedisUrl());

beforeAll(async () => {
  t = await createTestApp({ sseHeartbeatSeconds: 1 });
  owner = await t.signUp();
});
afterAll(async () => {
  publisherRedis.disconnect();
  await t.close();
});

async function newRun(status: 'running' | 'succeeded' = 'running') {
  const id = newId('run');
  await t.db.insert(runs).values({ id, kind: 'chat', userId: owner.user.id, status });
  return id;
}

/** Reads SSE blocks from a response until `stop` says so; returns parsed events and raw text. */
async function read(response: Response, stop: (text: string) => boolean, timeoutMs = 5000) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  while (!stop(text) && Date.now() < deadline) {
    const next = await Promise.race([reader.read(), new Promise<{ done: true; value: undefined }>((resolve) => setTimeout(() => resolve({ done: true, value: undefined }), deadline - Date.now()))]);
    if (next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  await reader.cancel().catch(() => {});
  const events = text
    .split('\n\n')
    .map((block) => ({ id: /^id: ?(\d+)/m.exec(block)?.[1], data: /^data: ?(.*)$/m.exec(block)?.[1] }))
    .filter((event) => event.id && event.data)
    .map((event) => ({ seq: Number(event.id), chunk: JSON.parse(event.data!) }));
  return { text, events };
}

const events = (runId: string, lastEventId?: number) =>
  t.app.request(`/api/runs/${runId}/events`, { headers: { cookie: owner.cookie, ...(lastEventId ? { 'last-event-id': String(lastEventId) } : {}) } });

describe('run events over SSE', () => {
  it('replays stored events after Last-Event-ID, then follows live ones, in order, and closes after finish', async () => {
    const runId = await newRun();
    const publisher = new RunEventPublisher(publisherRedis, t.prefix, runId, 0);
    publisher.emit({ type: 'start', messageId: runId });
    publisher.emit({ type: 'text-start', id: 't' });
    publisher.emit({ type: 'text-delta', id: 't', delta: 'Hel' });
    await publisher.flush();
    publisher.emit({ type: 'text-delta', id: 't', delta: 'lo' });
    await publisher.flush();

    const response = await events(runId, 2);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const reading = read(response, (text) => text.includes('[DONE]'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    publisher.emit({ type: 'text-end', id: 't' });
    publisher.emit({ type: 'finish' });
    await publisher.close();
    const { events: received, text } = await reading;
    expect(received.map((event) => event.seq)).toEqual([3, 4, 5, 6]);
    expect(received.map((event) => event.chunk.type)).toEqual(['text-delta', 'text-delta', 'text-end', 'finish']);
    expect(text).toContain('data: [DONE]');
  });

  it('answers a reconnect after the end with [DONE] at once, sending nothing again', async () => {
    const runId = await newRun();
    const publisher = new RunEventPublisher(publisherRedis, t.prefix, runId, 0);
    publisher.emit({ type: 'start', messageId: runId });
    publisher.emit({ type: 'finish' });
    await publisher.close();
    await t.db.update(runs).set({ status: 'succeeded' }).where(eq(runs.id, runId));
    const { events: received, text } = await read(await events(runId, 2), (body) => body.includes('[DONE]'), 2000);
    expect(received).toEqual([]);
    expect(text).toContain('data: [DONE]');
  });

  it('follows a reconnect of a run the database has ended until the stream itself ends (the worker settles first, then publishes the end)', async () => {
    const runId = await newRun();
    const publisher = new RunEventPublisher(publisherRedis, t.prefix, runId, 0);
    publisher.emit({ type: 'start', messageId: runId });
    publisher.emit({ type: 'data-run-status', transient: true, data: { status: 'running' } });
    await publisher.flush();
    await t.db.update(runs).set({ status: 'failed', error: 'The model provider failed' }).where(eq(runs.id, runId));
    const reading = read(await events(runId, 2), (body) => body.includes('[DONE]'), 3000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    publisher.emit({ type: 'error', errorText: 'The model provider failed' });
    publisher.emit({ type: 'data-run-status', transient: true, data: { status: 'failed', error: 'The model provider failed' } });
    publisher.emit({ type: 'finish' });
    await publisher.close();
    const { events: received, text } = await reading;
    expect(received.map((event) => [event.seq, event.chunk.type])).toEqual([
      [3, 'error'],
      [4, 'data-run-status'],
      [5, 'finish'],
    ]);
    expect(received[1]!.chunk.data.status).toBe('failed');
    expect(text).toContain('data: [DONE]');
  });

  it("ends a stream whose end never comes from the database's outcome, after four heartbeats", async () => {
    const runId = await newRun();
    const publisher = new RunEventPublisher(publisherRedis, t.prefix, runId, 0);
    publisher.emit({ type: 'start', messageId: runId });
    publisher.emit({ type: 'data-run-status', transient: true, data: { status: 'running' } });
    await publisher.close();
    await t.db.update(runs).set({ status: 'failed', error: 'worker lost', finishReason: 'error' }).where(eq(runs.id, runId));
    const startedAt = Date.now();
    const { events: received, text } = await read(await events(runId, 2), (body) => body.includes('[DONE]'), 8000);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(3500);
    expect(received.map((event) => [event.seq, event.chunk.type])).toEqual([
      [3, 'data-run-status'],
      [4, 'error'],
      [5, 'finish'],
    ]);
    expect(received[0]!.chunk.data).toMatchObject({ status: 'failed', error: 'worker lost', finishReason: 'error' });
    expect(text).toContain('data: [DONE]');
  });

  it('coalesces deltas written within one flush into one event', async () => {
    const runId = await newRun();
    const publisher = new RunEventPublisher(publisherRedis, t.prefix, runId, 0);
    for (const delta of ['a', 'b', 'c']) publisher.emit({ type: 'text-delta', id: 'x', delta });
    publisher.emit({ type: 'finish' });
    await publisher.close();
    const { events: received } = await read(await events(runId), (text) => text.includes('[DONE]'));
    expect(received.map((event) => event.chunk)).toEqual([{ type: 'text-delta', id: 'x', delta: 'abc' }, { type: 'finish' }]);
  });

  it('sends heartbeats while a run is quiet, and releases its subscription on disconnect', async () => {
    const runId = await newRun();
    const response = await events(runId);
    const { text } = await read(response, (received) => received.includes(': keep-alive'), 4000);
    expect(text).toContain(': keep-alive');
    await expect.poll(() => t.runEvents.activeChannels, { timeout: 5000 }).toBe(0);
  });

  it("answers another user's run, or an unknown one, 404 without a subscription left behind", async () => {
    const runId = await newRun();
    const publisher = new RunEventPublisher(publisherRedis, t.prefix, runId, 0);
    publisher.emit({ type: 'start', messageId: runId });
    await publisher.flush();
    const stranger = await t.signUp();
    for (const id of [runId, 'run_unknown']) {
      const response = await t.app.request(`/api/runs/${id}/events`, { headers: { cookie: stranger.cookie } });
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain(runId);
    }
    expect(t.runEvents.activeChannels).toBe(0);
  });

  it('replays a finished run from its persisted message once its stream has expired', async () => {
    const runId = await newRun('succeeded');
    const sessionId = newId('chatSession');
    await t.db.update(runs).set({ sessionId, finishReason: 'stop', steps: 1 }).where(eq(runs.id, runId));
    await t.db.insert(chatSessions).values({ id: sessionId, userId: owner.user.id });
    await t.db.insert(messages).values({ id: newId('message'), sessionId, role: 'assistant', runId, parts: [{ type: 'text', text: 'persisted answer' }] });
    await publisherRedis.del(runStreamKeys(t.prefix, runId).events);
    const { events: received } = await read(await events(runId), (text) => text.includes('[DONE]'));
    const text = received.filter((event) => event.chunk.type === 'text-delta').map((event) => event.chunk.delta).join('');
    expect(text).toBe('persisted answer');
    expect(received.at(-1)!.chunk.type).toBe('finish');
    expect(received.map((event) => event.seq)).toEqual(received.map((_, index) => index + 1));
  });

  it('streams a run on the POST that starts it (Accept: text/event-stream): the job is enqueued, every event follows, and a retry with the same Idempotency-Key replays the run', async () => {
    await insertBackgroundModel(t.db, 'Run events test model');
    const session = await (await t.app.request('/api/sessions', { method: 'POST', headers: owner.headers, body: '{}' })).json();
    const post = () =>
      t.app.request(`/api/sessions/${session.id}/runs`, {
        method: 'POST',
        headers: { ...owner.headers, accept: 'text/event-stream', 'idempotency-key': `stream-${session.id}` },
        body: JSON.stringify({ content: 'stream it' }),
      });
    const response = await post();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const runId = response.headers.get('x-agentq-run-id')!;
    expect(runId).toMatch(/^run_/);
    expect(await t.queues.chatTurns.getJob(runId)).toBeDefined();
    // Stands in for the worker: everything published from now on reaches the response.
    const reading = read(response, (text) => text.includes('[DONE]'));
    const publisher = new RunEventPublisher(publisherRedis, t.prefix, runId, 0);
    publisher.emit({ type: 'start', messageId: runId });
    publisher.emit({ type: 'text-start', id: 't' });
    publisher.emit({ type: 'text-delta', id: 't', delta: 'streamed' });
    publisher.emit({ type: 'text-end', id: 't' });
    publisher.emit({ type: 'finish' });
    await publisher.close();
    const { events: received } = await reading;
    expect(received.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(received.at(-1)!.chunk.type).toBe('finish');

    const retried = await post();
    expect(retried.headers.get('x-agentq-run-id')).toBe(runId);
    const { events: replayed } = await read(retried, (text) => text.includes('[DONE]'));
    expect(replayed.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('follows a run it just answered 202 for without reading it again, only for its owner, and once', async () => {
    await insertBackgroundModel(t.db, 'Run events test model');
    const session = await (await t.app.request('/api/sessions', { method: 'POST', headers: owner.headers, body: '{}' })).json();
    const started = await t.app.request(`/api/sessions/${session.id}/runs`, { method: 'POST', headers: owner.headers, body: JSON.stringify({ content: 'follow me' }) });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    // Someone else gets the 404 the database would give, and leaves the run for its owner.
    const stranger = await t.signUp();
    expect((await t.app.request(`/api/runs/${runId}/events`, { headers: { cookie: stranger.cookie } })).status).toBe(404);
    // The row now names someone else: only a follow that does not read it still answers the owner.
    await t.db.update(runs).set({ userId: stranger.user.id }).where(eq(runs.id, runId));
    const first = await events(runId);
    expect(first.status).toBe(200);
    const publisher = new RunEventPublisher(publisherRedis, t.prefix, runId, 0);
    publisher.emit({ type: 'start', messageId: runId });
    publisher.emit({ type: 'finish' });
    await publisher.close();
    const { events: received } = await read(first, (text) => text.includes('[DONE]'));
    expect(received.map((event) => event.chunk.type)).toEqual(['start', 'finish']);
    // The next follow reads the database, which now names another owner.
    expect((await events(runId)).status).toBe(404);
  });

  it("answers 404 for someone else's run and 401 without a session", async () => {
    const runId = await newRun();
    const other = await t.signUp();
    expect((await t.app.request(`/api/runs/${runId}/events`, { headers: { cookie: other.cookie } })).status).toBe(404);
    expect((await t.app.request(`/api/runs/${runId}/events`)).status).toBe(401);
  });
});
