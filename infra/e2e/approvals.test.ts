import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '@agentq/shared/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';
import { byLastUserMessage, toolResultsSinceLastUserMessage } from '../fake-llm/scripts';
import { startRedisChild } from '../scripts/redis-child';
import { ApiClient } from '../testing/api-client';
import { startProcessStack, type ProcessStack } from '../testing/process-stack';

let stack: ProcessStack;
let llm: FakeLlm;
let target: Server;
let targetBase = '';
let redis: Awaited<ReturnType<typeof startRedisChild>>;
let redisDir = '';
let user: ApiClient;
let admin: ApiClient;
const hits: string[] = [];

/** The model: "order <name>" calls the order tool for /<name>; after a result it repeats what the tool said. */
function script() {
  return byLastUserMessage([
    {
      match: /^order (\w+)/i,
      reply: (request) => {
        const results = toolResultsSinceLastUserMessage(request);
        if (results.length > 0) return { text: `Result: ${results.map((result) => result.content).join(' | ')}` };
        const name = /^order (\w+)/i.exec(request.messages.filter((message) => message.role === 'user').at(-1)!.content as string)![1];
        return { toolCalls: [{ name: 'order', input: { url: `${targetBase}/${name}`, method: 'POST' } }] };
      },
    },
    {
      match: /^quick/i,
      reply: (request) => (toolResultsSinceLastUserMessage(request).length ? { text: 'Quick done.' } : { toolCalls: [{ name: 'quick', input: { url: `${targetBase}/quick`, method: 'POST' } }] }),
    },
    { match: /^plain/i, reply: { text: 'No tools needed.' } },
  ]);
}

async function startRun(content: string) {
  const session = await user.post('/api/sessions', {});
  const run = await user.post(`/api/sessions/${session.body.id}/runs`, { content });
  expect(run.status).toBe(202);
  return { sessionId: session.body.id as string, runId: run.body.runId as string };
}

async function pendingApproval(runId: string) {
  let approval: { id: string; status: string; input: unknown } | undefined;
  await expect
    .poll(async () => {
      approval = (await user.get(`/api/approvals?runId=${runId}`)).body.items[0];
      return approval?.status;
    }, { timeout: 15_000, interval: 50 })
    .toBe('pending');
  return approval!;
}

async function waitForRun(runId: string, status = 'succeeded') {
  await expect.poll(async () => (await user.get(`/api/runs/${runId}`)).body.status, { timeout: 20_000, interval: 100 }).toBe(status);
  return (await user.get(`/api/runs/${runId}`)).body;
}

function finalText(events: RunEvent[]) {
  return events
    .filter((event) => event.chunk.type === 'text-delta')
    .map((event) => (event.chunk as { delta: string }).delta)
    .join('');
}

beforeAll(async () => {
  target = createServer((request, response) => {
    hits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(`done ${request.url}`);
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const address = target.address();
  targetBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  redisDir = mkdtempSync(join(tmpdir(), 'agentq-redis-'));
  // A private Redis without persistence: restarting it loses every job, as the reconciler test needs.
  redis = await startRedisChild(redisDir, { persistent: false });
  llm = await startFakeLlm({ script: script() });
  stack = await startProcessStack({
    workers: 1,
    env: { REDIS_URL: redis.url },
    workerEnv: { WORKER_CONCURRENCY: '1', RECONCILE_INTERVAL_MS: '1000', WORKER_LOCK_DURATION_MS: '5000', WORKER_STALLED_INTERVAL_MS: '2000' },
  });
  admin = await ApiClient.login(stack.apiUrl, stack.admin);
  await admin.post('/api/models', { name: 'Fake', baseUrl: llm.url, modelId: 'fake' });
  expect((await admin.post('/api/agent-tools', { name: 'Order', slug: 'order', type: 'fetch', needsApproval: true, config: { parseMode: 'raw' } })).status).toBe(201);
  expect((await admin.post('/api/agent-tools', { name: 'Quick', slug: 'quick', type: 'fetch', needsApproval: true, approvalTimeoutMs: 1000, config: { parseMode: 'raw' } })).status).toBe(201);
  const credentials = { email: `approver-${Date.now()}@test.local`, password: 'user-password-1' };
  await admin.post('/api/users', { ...credentials, name: 'Approver' });
  user = await ApiClient.login(stack.apiUrl, credentials);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await llm?.close();
  await redis?.stop();
  target?.close();
  if (redisDir) rmSync(redisDir, { recursive: true, force: true });
});

describe('parking', () => {
  it('a parked run holds no worker slot: with concurrency 1, a run needing no approval completes meanwhile', async () => {
    const a = await startRun('order alpha');
    const approval = await pendingApproval(a.runId);
    await expect.poll(async () => (await user.get(`/api/runs/${a.runId}`)).body.status).toBe('awaiting_approval');
    const b = await startRun('plain question');
    await waitForRun(b.runId);
    expect((await user.get(`/api/runs/${a.runId}`)).body.status).toBe('awaiting_approval');
    expect(hits.filter((hit) => hit === '/alpha')).toHaveLength(0);

    expect((await user.post(`/api/approvals/${approval.id}`, { decision: 'approve' })).status).toBe(200);
    await waitForRun(a.runId);
    expect(hits.filter((hit) => hit === '/alpha')).toHaveLength(1);
    const { events } = await user.readEvents(a.runId);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const types = events.map((event) => event.chunk.type);
    expect(types).toContain('data-approval-request');
    expect(types).toContain('data-approval-response');
    expect(finalText(events)).toContain('done /alpha');
  });
});

describe('decisions', () => {
  it('deny with a reason: the tool never runs and the model hears the reason', async () => {
    const { runId } = await startRun('order bravo');
    const approval = await pendingApproval(runId);
    expect((await user.post(`/api/approvals/${approval.id}`, { decision: 'deny', reason: 'budget frozen this week' })).status).toBe(200);
    await waitForRun(runId);
    expect(hits).not.toContain('/bravo');
    const { events } = await user.readEvents(runId);
    expect(events.some((event) => event.chunk.type === 'tool-output-denied')).toBe(true);
    expect(finalText(events)).toContain('budget frozen this week');
  });

  it('approve with edited input: the tool gets the edited input, both inputs are kept; bad edits are 400', async () => {
    const { runId } = await startRun('order charlie');
    const approval = await pendingApproval(runId);
    const bad = await user.post(`/api/approvals/${approval.id}`, { decision: 'approve', input: { url: 42 } });
    expect(bad.status).toBe(400);
    expect((await user.get(`/api/approvals/${approval.id}`)).body.status).toBe('pending');
    const edited = { url: `${targetBase}/charlie-edited`, method: 'POST' };
    expect((await user.post(`/api/approvals/${approval.id}`, { decision: 'approve', input: edited })).status).toBe(200);
    await waitForRun(runId);
    expect(hits).toContain('/charlie-edited');
    expect(hits).not.toContain('/charlie');
    const stored = (await user.get(`/api/approvals/${approval.id}`)).body;
    expect(stored.input).toMatchObject({ url: `${targetBase}/charlie` });
    expect(stored.editedInput).toEqual(edited);
    expect(stored).toMatchObject({ status: 'approved' });
    expect(stored.decidedBy).toBeTruthy();
  });

  it('the same decision twice (a retry) answers the stored state both times, a different one is 409, and the tool runs once', async () => {
    const { runId } = await startRun('order delta');
    const approval = await pendingApproval(runId);
    const [first, second] = await Promise.all([
      user.post(`/api/approvals/${approval.id}`, { decision: 'approve' }),
      user.post(`/api/approvals/${approval.id}`, { decision: 'approve' }),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body.decidedAt).toBe(second.body.decidedAt);
    expect(first.body.status).toBe('approved');
    const contrary = await user.post(`/api/approvals/${approval.id}`, { decision: 'deny' });
    expect(contrary.status).toBe(409);
    expect(contrary.body.error.details.status).toBe('approved');
    await waitForRun(runId);
    expect(hits.filter((hit) => hit === '/delta')).toHaveLength(1);
  });

  it('a decision posted the moment the approval appears (before the job has parked) still resumes the run', async () => {
    const { runId } = await startRun('order echo');
    let decided = false;
    while (!decided) {
      const items = (await user.get(`/api/approvals?runId=${runId}`)).body.items;
      if (items[0]) decided = (await user.post(`/api/approvals/${items[0].id}`, { decision: 'approve' })).status === 200;
    }
    await waitForRun(runId);
    expect(hits.filter((hit) => hit === '/echo')).toHaveLength(1);
  });

  it('an approval nobody decides expires and counts as denied', async () => {
    const { runId } = await startRun('quick one');
    const approval = await pendingApproval(runId);
    await waitForRun(runId);
    expect((await user.get(`/api/approvals/${approval.id}`)).body.status).toBe('expired');
    expect(hits).not.toContain('/quick');
    const { events } = await user.readEvents(runId);
    const response = events.find((event) => event.chunk.type === 'data-approval-response')!.chunk as { data: { status: string } };
    expect(response.data.status).toBe('expired');
    expect((await user.post(`/api/approvals/${approval.id}`, { decision: 'approve' })).status).toBe(409);
  });

  it('"remember for this session" lets later calls of the tool run without asking', async () => {
    const session = await user.post('/api/sessions', {});
    const first = await user.post(`/api/sessions/${session.body.id}/runs`, { content: 'order foxtrot' });
    const approval = await pendingApproval(first.body.runId);
    await user.post(`/api/approvals/${approval.id}`, { decision: 'approve', remember: 'session' });
    await waitForRun(first.body.runId);
    // The run's own record says so too, so a follower (or a reload) shows it without asking the API.
    const { events } = await user.readEvents(first.body.runId);
    const response = events.find((event) => event.chunk.type === 'data-approval-response')!.chunk as { data: { status: string; remember?: boolean } };
    expect(response.data).toMatchObject({ status: 'approved', remember: true });
    const second = await user.post(`/api/sessions/${session.body.id}/runs`, { content: 'order golf' });
    await waitForRun(second.body.runId);
    expect(hits).toContain('/golf');
    expect((await user.get(`/api/approvals?runId=${second.body.runId}`)).body.items).toHaveLength(0);
  });

  it("another user's approval is 404 to read and to decide", async () => {
    const { runId } = await startRun('order hotel');
    const approval = await pendingApproval(runId);
    const credentials = { email: `stranger-${Date.now()}@test.local`, password: 'user-password-2' };
    await admin.post('/api/users', { ...credentials, name: 'Stranger' });
    const stranger = await ApiClient.login(stack.apiUrl, credentials);
    expect((await stranger.get(`/api/approvals/${approval.id}`)).status).toBe(404);
    expect((await stranger.post(`/api/approvals/${approval.id}`, { decision: 'approve' })).status).toBe(404);
    expect((await stranger.get('/api/approvals?status=pending')).body.items).toHaveLength(0);
    expect((await user.get('/api/approvals/count')).body.pending).toBeGreaterThanOrEqual(1);
    await user.post(`/api/approvals/${approval.id}`, { decision: 'deny' });
    await waitForRun(runId);
  });
});

describe('durability', () => {
  it('survives a worker restart while parked', async () => {
    const { runId } = await startRun('order india');
    const approval = await pendingApproval(runId);
    await expect.poll(async () => (await user.get(`/api/runs/${runId}`)).body.status).toBe('awaiting_approval');
    await stack.workers[0]!.stop('SIGTERM');
    stack.workers.shift();
    await stack.startWorker();
    expect((await user.post(`/api/approvals/${approval.id}`, { decision: 'approve' })).status).toBe(200);
    await waitForRun(runId);
    expect(hits.filter((hit) => hit === '/india')).toHaveLength(1);
  });

  it('survives a Redis restart that loses every job: the reconciler restores the parked run and approve resumes it', async () => {
    const { runId } = await startRun('order juliett');
    const approval = await pendingApproval(runId);
    await expect.poll(async () => (await user.get(`/api/runs/${runId}`)).body.status).toBe('awaiting_approval');
    await redis.stop();
    redis = await startRedisChild(redisDir, { port: redis.port, persistent: false });
    // The reconciler (every second here) sees the run in PostgreSQL with no job in the empty Redis.
    await expect.poll(() => stack.workers.map((worker) => worker.output()).join(''), { timeout: 20_000 }).toContain(`"runId":"${runId}"`);
    await expect.poll(() => stack.workers.map((worker) => worker.output()).join(''), { timeout: 20_000 }).toContain('re-enqueued');
    await expect.poll(async () => (await user.post(`/api/approvals/${approval.id}`, { decision: 'approve' })).status, { timeout: 10_000 }).toBe(200);
    await waitForRun(runId);
    expect(hits.filter((hit) => hit === '/juliett')).toHaveLength(1);
  });
});
