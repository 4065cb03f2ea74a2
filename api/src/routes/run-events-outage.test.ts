import { runs } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { createWorkerRedis } from '@agentq/shared/redis';
import { RunEventPublisher } from '@agentq/shared/run-stream';
import { startPrivateRedis, type PrivateRedis } from '@agentq/shared/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createTestApp, insertBackgroundModel } from '../testing';

// A Redis of this file's own: these tests stop and restart it.
let server: PrivateRedis;
let t: Awaited<ReturnType<typeof createTestApp>>;
let owner: Awaited<ReturnType<typeof t.signUp>>;
let publisherRedis: Redis;

beforeAll(async () => {
  server = await startPrivateRedis({ appendonly: true });
  t = await createTestApp({ redisUrl: server.url, sseHeartbeatSeconds: 1 });
  owner = await t.signUp();
  publisherRedis = createWorkerRedis(server.url);
  publisherRedis.on('error', () => {});
}, 60_000);
afterAll(async () => {
  publisherRedis?.disconnect();
  await t?.close();
  await server?.dispose();
});

async function newRun() {
  const id = newId('run');
  await t.db.insert(runs).values({ id, kind: 'chat', userId: owner.user.id, status: 'running' });
  return id;
}

/** Collects an SSE response in the background: event seqs, keep-alives and whether [DONE] came. */
function follow(response: Response) {
  const state = { seqs: [] as number[], types: [] as string[], keepAlives: 0, done: false, ended: false };
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const finished = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let boundary: number;
      while ((boundary = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        if (block.startsWith(': keep-alive')) state.keepAlives += 1;
        if (block.includes('data: [DONE]')) state.done = true;
        const id = /^id: ?(\d+)/m.exec(block)?.[1];
        const data = /^data: ?(\{.*)$/m.exec(block)?.[1];
        if (id && data) {
          state.seqs.push(Number(id));
          state.types.push((JSON.parse(data) as { type: string }).type);
        }
      }
    }
    state.ended = true;
  })();
  return { state, finished, cancel: () => reader.cancel().catch(() => {}) };
}

const openEvents = (runId: string) => t.app.request(`/api/runs/${runId}/events`, { headers: { cookie: owner.cookie } });

describe('run events while Redis restarts', () => {
  it('while Redis is down a new follower gets 503 with Retry-After and a JSON error; an open one stays open on heartbeats, then gets every event and finish after the hub re-subscribes', async () => {
    const runId = await newRun();
    const publisher = new RunEventPublisher(publisherRedis, t.prefix, runId, 0);
    publisher.emit({ type: 'start', messageId: runId });
    publisher.emit({ type: 'text-start', id: 't' });
    await publisher.flush();

    const open = await openEvents(runId);
    expect(open.status).toBe(200);
    const follower = follow(open);
    await expect.poll(() => follower.state.seqs.length).toBe(2);
    const reconnectsBefore = t.runEvents.reconnects;
    const stranger = await t.signUp();

    await server.stop('SIGTERM');
    const refused = await openEvents(runId);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ error: { code: 'service_unavailable' } });
    // A run that is not the viewer's is still a 404, outage or not.
    const foreign = await t.app.request(`/api/runs/${runId}/events`, { headers: { cookie: stranger.cookie } });
    expect(foreign.status).toBe(404);
    // The open stream is kept alive by heartbeats, not closed.
    const keepAlives = follower.state.keepAlives;
    await expect.poll(() => follower.state.keepAlives, { timeout: 5000 }).toBeGreaterThan(keepAlives);
    expect(follower.state.ended).toBe(false);

    await server.start();
    // Published at once, most likely before the hub is subscribed again: pub/sub drops these, the re-read finds them.
    publisher.emit({ type: 'text-delta', id: 't', delta: 'after the restart' });
    publisher.emit({ type: 'text-end', id: 't' });
    publisher.emit({ type: 'finish' });
    await publisher.close();
    await follower.finished;

    expect(follower.state.seqs).toEqual([1, 2, 3, 4, 5]);
    expect(follower.state.types.at(-1)).toBe('finish');
    expect(follower.state.done).toBe(true);
    // The hub subscribes again; the follower may have caught up from the stream (heartbeat re-read) just before it did.
    await expect.poll(() => t.runEvents.reconnects, { timeout: 10_000 }).toBeGreaterThan(reconnectsBefore);
    // Served normally again once the API's fail-fast connection is back (it retries every ≤ 2 s).
    await expect.poll(async () => (await openEvents(await newRun())).status, { timeout: 10_000 }).toBe(200);
  }, 60_000);

  it('a POST of a new run while Redis is down (streamed or 202) answers 503 and ends the run failed, so the session is not blocked', async () => {
    await insertBackgroundModel(t.db, 'Outage test model');
    const session = await (await t.app.request('/api/sessions', { method: 'POST', headers: owner.headers, body: '{}' })).json();
    await server.stop('SIGTERM');
    try {
      const refused = await t.app.request(`/api/sessions/${session.id}/runs`, { method: 'POST', headers: { ...owner.headers, accept: 'text/event-stream' }, body: JSON.stringify({ content: 'now' }) });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: { code: 'service_unavailable' } });
      const [run] = await t.db.select().from(runs).where(eq(runs.sessionId, session.id));
      expect(run).toMatchObject({ status: 'failed', error: 'Could not enqueue the run (queue unavailable)' });
      // The 202 path adds the job after answering only while Redis is up; known down, it answers 503 the same way.
      expect(t.redis.status).not.toBe('ready');
      const other = await (await t.app.request('/api/sessions', { method: 'POST', headers: owner.headers, body: '{}' })).json();
      const refusedJson = await t.app.request(`/api/sessions/${other.id}/runs`, { method: 'POST', headers: owner.headers, body: JSON.stringify({ content: 'now' }) });
      expect(refusedJson.status).toBe(503);
      const [otherRun] = await t.db.select().from(runs).where(eq(runs.sessionId, other.id));
      expect(otherRun).toMatchObject({ status: 'failed', error: 'Could not enqueue the run (queue unavailable)' });
    } finally {
      await server.start();
    }
    await expect.poll(async () => (await openEvents(await newRun())).status, { timeout: 10_000 }).toBe(200);
  }, 60_000);

  it('after a Redis restart the hub delivers live events to new and old followers (it subscribed again)', async () => {
    const runId = await newRun();
    const publisher = new RunEventPublisher(publisherRedis, t.prefix, runId, 0);
    publisher.emit({ type: 'start', messageId: runId });
    await publisher.flush();
    const follower = follow(await openEvents(runId));
    await expect.poll(() => follower.state.seqs.length).toBe(1);
    await server.stop('SIGKILL');
    await server.start();
    await expect.poll(async () => (await openEvents(await newRun())).status, { timeout: 10_000 }).toBe(200);
    const second = follow(await openEvents(runId));
    for (let index = 0; index < 20; index++) publisher.emit({ type: 'data-run-status', data: { status: 'running' }, transient: true } as never);
    publisher.emit({ type: 'finish' });
    await publisher.close();
    await Promise.all([follower.finished, second.finished]);
    expect(follower.state.seqs).toEqual(Array.from({ length: 22 }, (_, index) => index + 1));
    expect(second.state.seqs.at(-1)).toBe(22);
    expect(second.state.done && follower.state.done).toBe(true);
  }, 60_000);
});
