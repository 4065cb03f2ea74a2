import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';
import { byLastUserMessage, fillerText, toolResultsSinceLastUserMessage } from '../fake-llm/scripts';
import { ApiClient } from '../testing/api-client';
import { startProcessStack, type ProcessStack } from '../testing/process-stack';
import { startRedisCluster, type LocalRedisCluster } from '../testing/redis-cluster';

/**
 * The product on a Redis Cluster (3 masters, 3 replicas, REDIS_CLUSTER_NODES): queues under the
 * hash-tagged prefix, per-run streams spread over the masters, a master killed mid-run, then
 * cancel (pub/sub) and sign-in throttling on the cluster that is left.
 */
let cluster: LocalRedisCluster;
let llm: FakeLlm;
let stack: ProcessStack;
let user: ApiClient;
let admin: ApiClient;

async function startRun(content: string) {
  const session = await user.post('/api/sessions', {});
  expect(session.status).toBe(201);
  const run = await user.post(`/api/sessions/${session.body.id}/runs`, { content });
  expect(run.status).toBe(202);
  return { sessionId: session.body.id as string, runId: run.body.runId as string };
}

async function statusOf(runId: string): Promise<string | undefined> {
  const response = await user.get(`/api/runs/${runId}`).catch(() => undefined);
  return response?.status === 200 ? response.body.status : undefined;
}

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  // Each run: a calculator call (the tool-executions queue), then ~1.5 s of streamed text.
  llm = await startFakeLlm({
    script: byLastUserMessage([
      { match: /^slow story/i, reply: { text: fillerText(200), latency: { timeToFirstTokenMs: 100, interTokenMs: 50 } } },
      {
        match: /^compute/i,
        reply: (request) =>
          toolResultsSinceLastUserMessage(request).length > 0
            ? { text: `The answer is 42. ${fillerText(30)}`, latency: { timeToFirstTokenMs: 100, interTokenMs: 50 } }
            : { toolCalls: [{ name: 'calc', input: { expression: '6*7' } }] },
      },
    ]),
  });
  stack = await startProcessStack({
    workers: 2,
    env: { REDIS_URL: '', REDIS_CLUSTER_NODES: cluster.nodes },
    // Default job locks (30 s) outlast the failover, so running jobs keep them; a job enqueued in
    // the replication window and lost with the master comes back through the reconciler.
    workerEnv: { RECONCILE_INTERVAL_MS: '2000' },
  });
  admin = await ApiClient.login(stack.apiUrl, stack.admin);
  expect((await admin.post('/api/models', { name: 'Fake', baseUrl: llm.url, modelId: 'fake' })).status).toBe(201);
  expect((await admin.post('/api/agent-tools', { name: 'Calc', slug: 'calc', type: 'calculator' })).status).toBe(201);
  const credentials = { email: `cluster-${Date.now()}@test.local`, password: 'user-password-1' };
  expect((await admin.post('/api/users', { ...credentials, name: 'Cluster user' })).status).toBe(201);
  user = await ApiClient.login(stack.apiUrl, credentials);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await llm?.close();
  await cluster?.stop();
});

describe('Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  it('runs stream over SSE, queues live under the {prefix} tag and run streams spread over the masters', async () => {
    const runs = await Promise.all(Array.from({ length: 10 }, (_, index) => startRun(`compute ${index}`)));
    const { events } = await user.readEvents(runs[0]!.runId, { timeoutMs: 60_000 });
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.some((event) => event.chunk.type === 'tool-output-available')).toBe(true);
    for (const { runId } of runs) await expect.poll(() => statusOf(runId), { timeout: 60_000, interval: 200 }).toBe('succeeded');

    const client = new Cluster(cluster.nodes.split(',').map((node) => ({ host: '127.0.0.1', port: Number(node.split(':')[1]) })));
    try {
      const tag = `{${stack.prefix}}`;
      expect(await client.exists(`${tag}:chat-turns:meta`)).toBe(1);
      expect(await client.exists(`${stack.prefix}:run:{${runs[0]!.runId}}:events`)).toBe(1);
      const masters = new Set(await Promise.all(runs.map(({ runId }) => cluster.masterFor(`{${runId}}`))));
      expect(masters.size).toBeGreaterThan(1);
    } finally {
      client.disconnect();
    }
    // The dashboard sees both worker processes through the cluster.
    const workers = await admin.get('/api/admin/workers');
    expect(workers.status).toBe(200);
    expect(JSON.stringify(workers.body)).toContain(String(stack.workers[1]!.child.pid));
    expect((await fetch(`${stack.apiUrl}/api/ready`)).status).toBe(200);
  }, 120_000);

  it('every run finishes when the master holding the queues is killed mid-run and its replica takes over', async () => {
    const queueKey = `{${stack.prefix}}`;
    const victim = await cluster.masterFor(queueKey);
    const runs = await Promise.all(Array.from({ length: 8 }, (_, index) => startRun(`compute during failover ${index}`)));
    await expect.poll(async () => (await Promise.all(runs.map(({ runId }) => statusOf(runId)))).filter((status) => status === 'running').length, { timeout: 30_000, interval: 100 }).toBeGreaterThan(0);

    await cluster.kill(victim);
    const promoted = await cluster.waitForFailover(queueKey, victim, 30_000);
    expect(promoted).not.toBe(victim);

    try {
      for (const { runId } of runs) await expect.poll(() => statusOf(runId), { timeout: 90_000, interval: 500 }).toBe('succeeded');
    } catch (error) {
      // What the workers said besides info lines: the reason a run did not finish.
      for (const worker of stack.workers) console.log(worker.output().split('\n').filter((line) => !line.includes('"level":30')).slice(-40).join('\n'));
      console.log('RUNS', await Promise.all(runs.map(async ({ runId }) => `${runId} ${await statusOf(runId)}`)));
      throw error;
    }
    // Work enqueued after the failover flows as before.
    const after = await startRun('compute after failover');
    await expect.poll(() => statusOf(after.runId), { timeout: 60_000, interval: 200 }).toBe('succeeded');
    const session = await user.get(`/api/sessions/${after.sessionId}`);
    expect(JSON.stringify(session.body)).toContain('The answer is 42');
    await expect.poll(async () => (await fetch(`${stack.apiUrl}/api/ready`)).status, { timeout: 20_000 }).toBe(200);
  }, 240_000);

  it('after the failover, a cancel reaches the worker over pub/sub and stops the stream mid-way', async () => {
    const { sessionId, runId } = await startRun('slow story');
    const head = await user.readEvents(runId, { until: (event) => event.chunk.type === 'text-delta', timeoutMs: 60_000 });
    expect(head.events.length).toBeGreaterThan(0);
    const cancelledAt = Date.now();
    expect((await user.post(`/api/runs/${runId}/cancel`)).status).toBe(202);
    // Read from the start: a reconnect after the cancel is stored but before the worker wrote the
    // run's end would be answered [DONE] at once (the run is over in PostgreSQL already).
    const { events, done } = await user.readEvents(runId, { timeoutMs: 30_000 });
    expect(done).toBe(true);
    // The whole answer takes ~10 s; the worker aborts the model call when the cancel message arrives.
    expect(Date.now() - cancelledAt).toBeLessThan(5_000);
    const lastStatus = events.filter((event) => event.chunk.type === 'data-run-status').map((event) => (event.chunk as { data: { status: string } }).data.status).at(-1);
    expect(lastStatus).toBe('cancelled');
    const session = await user.get(`/api/sessions/${sessionId}`);
    const partial = JSON.stringify(session.body.messages.filter((message: { role: string }) => message.role === 'assistant'));
    expect(partial.length).toBeLessThan(fillerText(200).length);
  }, 90_000);

  it('sign-in throttling counts failures on the cluster and refuses the 11th', async () => {
    const email = `throttled-${Date.now()}@test.local`;
    for (let attempt = 1; attempt <= 10; attempt++) {
      const response = await fetch(`${stack.apiUrl}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'wrong-password' }) });
      expect(response.status, `attempt ${attempt}`).toBe(401);
    }
    const refused = await fetch(`${stack.apiUrl}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'wrong-password' }) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
