import { agentToolLogs, approvals, runs, type RunCheckpoint } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { startWorkerHeartbeat } from '@agentq/shared/queues';
import { createWorkerRedis } from '@agentq/shared/redis';
import { testRedisUrl } from '@agentq/shared/testing';
import { MetricsTime, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let user: Awaited<ReturnType<typeof t.signUp>>;
let workerRedis: Redis;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.signUp('admin');
  user = await t.signUp('user');
  workerRedis = createWorkerRedis(testRedisUrl());
});

afterAll(async () => {
  workerRedis?.disconnect();
  await t.close();
});

const get = (path: string, headers: Record<string, string> = admin.headers) => t.app.request(path, { headers });

async function insertRun(values: Partial<typeof runs.$inferInsert> & { userId: string }) {
  const [row] = await t.db
    .insert(runs)
    .values({ id: newId('run'), kind: 'chat', ...values })
    .returning();
  return row!;
}

/** A BullMQ worker on the app's prefix that runs `process` for tool-exec jobs, with metrics on like ours. */
function toolExecWorker(process: (runId: string) => Promise<unknown>) {
  const worker = new Worker('tool-executions', async (job) => process(job.data.runId as string), {
    connection: workerRedis,
    prefix: t.prefix,
    concurrency: 2,
    metrics: { maxDataPoints: MetricsTime.ONE_WEEK },
  });
  worker.on('error', () => {});
  return worker;
}

describe('access', () => {
  it('answers 401 anonymous and 403 for a non-admin on every dashboard route', async () => {
    for (const path of ['/api/admin/overview', '/api/admin/queues', '/api/admin/throughput', '/api/admin/workers', '/api/admin/jobs/failed', '/api/admin/runs', '/api/admin/runs/run_x']) {
      expect((await t.app.request(path)).status, path).toBe(401);
      expect((await get(path, user.headers)).status, path).toBe(403);
    }
    const retry = await t.app.request('/api/admin/jobs/tool-executions/x/retry', { method: 'POST', headers: user.headers });
    expect(retry.status).toBe(403);
  });

  it('is in the OpenAPI document', async () => {
    const { paths } = await (await t.app.request('/api/openapi.json')).json();
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(['/admin/overview', '/admin/queues', '/admin/runs', '/admin/runs/{id}', '/admin/jobs/{queue}/{id}/retry']));
  });
});

describe('queues', () => {
  it('counts waiting jobs, and runs parked for approval apart from other delayed jobs', async () => {
    const before = (await (await get('/api/admin/queues')).json()).items as { name: string; counts: Record<string, number> }[];
    const chatBefore = before.find((queue) => queue.name === 'chat-turns')!;
    expect(before.map((queue) => queue.name).sort()).toEqual(['account-emails', 'chat-turns', 'knowledge-ingestions', 'schedule-fires', 'tool-executions', 'webhook-deliveries']);

    const waiting = await insertRun({ userId: user.user.id });
    await t.queues.chatTurns.add('chat-turn', { runId: waiting.id }, { jobId: waiting.id });
    const parked = await insertRun({ userId: user.user.id, status: 'awaiting_approval' });
    await t.queues.chatTurns.add('chat-turn', { runId: parked.id }, { jobId: parked.id, delay: 60_000 });
    const backoff = await insertRun({ userId: user.user.id });
    await t.queues.chatTurns.add('chat-turn', { runId: backoff.id }, { jobId: backoff.id, delay: 60_000 });

    const after = (await (await get('/api/admin/queues')).json()).items as { name: string; counts: Record<string, number> }[];
    const chat = after.find((queue) => queue.name === 'chat-turns')!;
    expect(chat.counts.waiting).toBe(chatBefore.counts.waiting! + 1);
    expect(chat.counts.parked).toBe(chatBefore.counts.parked! + 1);
    // Two jobs are delayed in BullMQ; one of them is the parked run.
    expect(chat.counts.delayed! + chat.counts.parked!).toBe(chatBefore.counts.delayed! + chatBefore.counts.parked! + 2);
    await t.queues.chatTurns.obliterate({ force: true });
  });
});

describe('failed jobs, throughput and workers', () => {
  it('lists a failed job, retries it (it then completes) and discards another', async () => {
    const missing = new Set<string>(['run_gone_1', 'run_gone_2']);
    const worker = toolExecWorker(async (runId) => {
      if (missing.has(runId)) throw new UnrecoverableError(`Run ${runId} does not exist`);
      return { ok: true };
    });
    try {
      for (const runId of missing) await t.queues.toolExecutions.add('tool-exec', { runId }, { jobId: runId });
      await expect
        .poll(async () => (await (await get('/api/admin/jobs/failed')).json()).items.map((job: { id: string }) => job.id).sort(), { timeout: 10_000 })
        .toEqual(['run_gone_1', 'run_gone_2']);
      const { items, total } = await (await get('/api/admin/jobs/failed?queue=tool-executions')).json();
      expect(total).toBe(2);
      expect(items[0]).toMatchObject({ queue: 'tool-executions', name: 'tool-exec', failedReason: expect.stringContaining('does not exist'), attemptsMade: 1 });
      expect(items[0].runId).toMatch(/^run_gone_/);

      // The cause goes away (the run is back); the operator retries.
      missing.delete('run_gone_1');
      const retried = await t.app.request('/api/admin/jobs/tool-executions/run_gone_1/retry', { method: 'POST', headers: admin.headers });
      expect(retried.status).toBe(200);
      await expect.poll(async () => (await t.queues.toolExecutions.getJob('run_gone_1'))?.getState(), { timeout: 10_000 }).toBe('completed');

      const discarded = await t.app.request('/api/admin/jobs/tool-executions/run_gone_2', { method: 'DELETE', headers: admin.headers });
      expect(discarded.status).toBe(204);
      expect(await t.queues.toolExecutions.getJob('run_gone_2')).toBeUndefined();
      expect((await (await get('/api/admin/jobs/failed')).json()).items).toEqual([]);

      // Only failed jobs: a completed one is a conflict, unknown ones 404.
      expect((await t.app.request('/api/admin/jobs/tool-executions/run_gone_1/retry', { method: 'POST', headers: admin.headers })).status).toBe(409);
      expect((await t.app.request('/api/admin/jobs/tool-executions/nope/retry', { method: 'POST', headers: admin.headers })).status).toBe(404);
      expect((await t.app.request('/api/admin/jobs/no-such-queue/x', { method: 'DELETE', headers: admin.headers })).status).toBe(404);

      // Throughput: both outcomes land in the current minute.
      const throughput = await (await get('/api/admin/throughput?minutes=5')).json();
      expect(throughput.minutes).toBe(5);
      const tools = throughput.items.find((item: { name: string }) => item.name === 'tool-executions');
      expect(tools.completed).toHaveLength(5);
      expect(tools.completed.reduce((sum: number, value: number) => sum + value, 0)).toBeGreaterThanOrEqual(1);
      expect(tools.failed.reduce((sum: number, value: number) => sum + value, 0)).toBeGreaterThanOrEqual(2);

      // BullMQ sees the worker's connection.
      const workers = await (await get('/api/admin/workers')).json();
      expect(workers.connections.find((entry: { queue: string }) => entry.queue === 'tool-executions').workers).toBeGreaterThanOrEqual(1);
    } finally {
      await worker.close();
    }
  });

  it('lists worker processes from their heartbeats, and readiness reports them without depending on them', async () => {
    const readyBefore = await (await t.app.request('/api/ready')).json();
    expect(readyBefore.workers).toMatchObject({ ok: false, count: 0 });

    const heartbeat = startWorkerHeartbeat(workerRedis, t.prefix, { concurrency: 3, queues: ['chat-turns', 'tool-executions'] });
    try {
      await expect.poll(async () => (await (await get('/api/admin/workers')).json()).items.length).toBe(1);
      const { items } = await (await get('/api/admin/workers')).json();
      expect(items[0]).toMatchObject({ pid: process.pid, concurrency: 3, queues: ['chat-turns', 'tool-executions'] });
      expect(items[0].uptimeMs).toBeGreaterThanOrEqual(0);
      const ready = await t.app.request('/api/ready');
      expect(ready.status).toBe(200);
      expect((await ready.json()).workers).toMatchObject({ ok: true, count: 1 });
    } finally {
      await heartbeat.stop();
    }
    expect((await (await get('/api/admin/workers')).json()).items).toEqual([]);
    // No worker: still ready (runs wait in the queue), but said so.
    const ready = await t.app.request('/api/ready');
    expect(ready.status).toBe(200);
    expect((await ready.json()).workers.ok).toBe(false);
  });

  it('drops a worker whose heartbeat expired', async () => {
    const heartbeat = startWorkerHeartbeat(workerRedis, t.prefix, { concurrency: 1, queues: [] }, { intervalMs: 60_000, ttlMs: 300 });
    await expect.poll(async () => (await (await get('/api/admin/workers')).json()).items.length).toBe(1);
    await expect.poll(async () => (await (await get('/api/admin/workers')).json()).items.length, { timeout: 3000 }).toBe(0);
    await heartbeat.stop();
  });

  it('overview bundles everything the dashboard polls', async () => {
    const response = await get('/api/admin/overview?minutes=10&failedLimit=5');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.queues).toHaveLength(6);
    expect(body.throughput.items[0].completed).toHaveLength(10);
    expect(body.workers).toHaveProperty('items');
    expect(body.failedJobs).toHaveProperty('items');
    expect((await get('/api/admin/overview?minutes=0')).status).toBe(400);
  });
});

describe('runs table and run detail', () => {
  it('filters by status, kind and user, with keyset pages', async () => {
    const other = await t.signUp('user');
    const created = [];
    for (let index = 0; index < 5; index++) {
      created.push(await insertRun({ userId: other.user.id, status: index % 2 ? 'failed' : 'succeeded', steps: index, usage: { inputTokens: 10, outputTokens: index }, finishedAt: new Date() }));
    }
    await insertRun({ userId: other.user.id, kind: 'tool', status: 'succeeded' });

    const all = await (await get(`/api/admin/runs?user=${encodeURIComponent(other.email)}`)).json();
    expect(all.total).toBe(6);
    expect(all.items[0]).toMatchObject({ userEmail: other.email, kind: 'tool' });

    const chats = await (await get(`/api/admin/runs?user=${other.user.id}&kind=chat&status=succeeded`)).json();
    expect(chats.total).toBe(3);
    expect(chats.items.every((run: { status: string; kind: string }) => run.status === 'succeeded' && run.kind === 'chat')).toBe(true);
    expect(chats.items[0].tokens).toBe(14);
    expect(chats.items[0].durationMs).toBeGreaterThanOrEqual(0);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/api/admin/runs?user=${other.user.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await (await get(query)).json();
      seen.push(...page.items.map((run: { id: string }) => run.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    expect(seen).toEqual(expect.arrayContaining(created.map((run) => run.id)));

    expect((await get('/api/admin/runs?cursor=garbage')).status).toBe(400);
    expect((await get('/api/admin/runs?status=exploded')).status).toBe(400);
  });

  it('returns the run with its timeline, tool logs and approvals', async () => {
    const timeline: RunCheckpoint['timeline'] = {
      lastSeq: 12,
      steps: [
        {
          step: 1,
          startedAt: 1000,
          firstOutputAt: 1200,
          lastOutputAt: 1500,
          endedAt: 1900,
          modelLatencyMs: 500,
          timeToFirstOutputMs: 200,
          finishReason: 'tool-calls',
          usage: { inputTokens: 30, outputTokens: 7, totalTokens: 37 },
          toolCalls: [{ toolCallId: 'call_1', toolName: 'calc', startedAt: 1500, endedAt: 1800, durationMs: 250, status: 'success' }],
          approvals: [{ approvalId: 'appr_1', toolCallId: 'call_1', toolName: 'calc', requestedAt: 1500, resolvedAt: 1700, waitMs: 200, status: 'approved' }],
        },
      ],
    };
    const run = await insertRun({ userId: user.user.id, status: 'succeeded', checkpoint: { messages: [], steps: 1, timeline }, finishedAt: new Date() });
    await t.db.insert(agentToolLogs).values({ toolId: 'tool_x', toolSlug: 'calc', userId: user.user.id, runId: run.id, toolCallId: 'call_1', input: { expression: '1+1' }, output: '2', status: 'success', durationMs: 250, result: { success: true } });
    await t.db.insert(approvals).values({ id: newId('approval'), runId: run.id, userId: user.user.id, toolCallId: 'call_1', toolName: 'calc', input: {}, inputHash: 'x', status: 'approved', expiresAt: new Date(Date.now() + 60_000), decidedAt: new Date() });

    const response = await get(`/api/admin/runs/${run.id}`);
    expect(response.status).toBe(200);
    const detail = await response.json();
    expect(detail.run).toMatchObject({ id: run.id, status: 'succeeded', userEmail: user.email });
    expect(detail.run).not.toHaveProperty('checkpoint');
    expect(detail.timeline).toEqual(timeline);
    expect(detail.toolLogs).toHaveLength(1);
    expect(detail.toolLogs[0]).toMatchObject({ toolSlug: 'calc', status: 'success', durationMs: 250 });
    expect(detail.toolLogs[0]).not.toHaveProperty('result');
    expect(detail.approvals[0]).toMatchObject({ status: 'approved', toolName: 'calc' });
    expect(detail.approvals[0].waitMs).toBeGreaterThanOrEqual(0);

    expect((await get('/api/admin/runs/run_does_not_exist')).status).toBe(404);
  });
});
