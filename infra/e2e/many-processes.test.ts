import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { RunEvent } from '@agentq/shared/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';
import { byLastUserMessage, fillerText, toolResultsSinceLastUserMessage } from '../fake-llm/scripts';
import { ApiClient } from '../testing/api-client';
import { startProcessStack, type ProcessStack } from '../testing/process-stack';
import { startRoundRobinProxy, type RoundRobinProxy } from '../testing/round-robin-proxy';

/** Two API processes and three workers behind one origin (a round-robin loopback proxy). */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
let stack: ProcessStack;
let llm: FakeLlm;
let proxy: RoundRobinProxy;
let target: Server;
let targetBase = '';
const hits: string[] = [];
let viaProxy: ApiClient;
let viaApi: [ApiClient, ApiClient];

const statusOf = (events: RunEvent[]) =>
  events.filter((event) => event.chunk.type === 'data-run-status').map((event) => (event.chunk as { data: { status: string } }).data.status).at(-1);
const textOf = (events: RunEvent[]) => events.flatMap((event) => (event.chunk.type === 'text-delta' ? [(event.chunk as { delta: string }).delta] : [])).join('');

async function startRun(client: ApiClient, content: string) {
  const session = await client.post('/api/sessions', {});
  expect(session.status).toBe(201);
  const run = await client.post(`/api/sessions/${session.body.id}/runs`, { content });
  expect(run.status).toBe(202);
  return run.body.runId as string;
}

beforeAll(async () => {
  target = createServer((request, response) => {
    hits.push(request.url ?? '');
    response.end(`done ${request.url}`);
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const address = target.address();
  targetBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  llm = await startFakeLlm({
    script: byLastUserMessage([
      {
        match: /^order (\w+)/i,
        reply: (request) => {
          const results = toolResultsSinceLastUserMessage(request);
          if (results.length > 0) return { text: `Ordered: ${results.map((result) => result.content).join(' ')}` };
          const name = /^order (\w+)/i.exec(request.messages.filter((message) => message.role === 'user').at(-1)!.content as string)![1];
          return { toolCalls: [{ name: 'order', input: { url: `${targetBase}/${name}`, method: 'POST' } }] };
        },
      },
      { match: /^stream/i, reply: { text: `Streaming across processes. ${fillerText(40)}`, latency: { timeToFirstTokenMs: 50, interTokenMs: 20 } } },
    ]),
  });
  stack = await startProcessStack({ apis: 2, workers: 3 });
  proxy = await startRoundRobinProxy(stack.apiUrls);
  const admin = await ApiClient.login(proxy.url, stack.admin);
  expect((await admin.post('/api/models', { name: 'Fake', baseUrl: llm.url, modelId: 'fake' })).status).toBe(201);
  expect((await admin.post('/api/agent-tools', { name: 'Order', slug: 'order', type: 'fetch', needsApproval: true, config: { parseMode: 'raw' } })).status).toBe(201);
  const credentials = { email: `many-${Date.now()}@test.local`, password: 'user-password-1' };
  expect((await admin.post('/api/users', { ...credentials, name: 'Many' })).status).toBe(201);
  viaProxy = await ApiClient.login(proxy.url, credentials);
  // The same session cookie works on either process: sessions live in PostgreSQL.
  viaApi = [viaProxy.at(stack.apiUrls[0]!), viaProxy.at(stack.apiUrls[1]!)];
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await stack?.stop();
  await llm?.close();
  target?.close();
});

describe('two API processes, three workers, one origin', () => {
  it('a run enqueued through one API is followed live over SSE through the other', async () => {
    const [first, second] = viaApi;
    const runId = await startRun(first, 'stream please');
    // The first token arrives through the second API while the run is still going (live, not a replay).
    const head = await second.readEvents(runId, { until: (event) => event.chunk.type === 'text-delta', timeoutMs: 60_000 });
    expect(head.events.at(-1)?.chunk.type).toBe('text-delta');
    expect((await first.get(`/api/runs/${runId}`)).body.status).toBe('running');
    const rest = await second.readEvents(runId, { lastEventId: head.events.at(-1)!.seq, timeoutMs: 60_000 });
    expect(rest.done).toBe(true);
    const events = [...head.events, ...rest.events];
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(statusOf(events)).toBe('succeeded');
    expect(textOf(events)).toContain(`Streaming across processes. ${fillerText(40)}`);
  });

  it('approvals are decided on either API and the run resumes on whichever worker picks it up', async () => {
    for (const [starter, decider, name] of [[viaApi[0], viaApi[1], 'alpha'], [viaApi[1], viaApi[0], 'bravo']] as const) {
      const runId = await startRun(starter, `order ${name}`);
      let approvalId: string | undefined;
      await expect
        .poll(async () => {
          const item = (await decider.get(`/api/approvals?runId=${runId}`)).body.items?.[0];
          approvalId = item?.id;
          return item?.status;
        }, { timeout: 30_000, interval: 100 })
        .toBe('pending');
      expect((await decider.post(`/api/approvals/${approvalId}`, { decision: 'approve' })).status).toBe(200);
      const { events } = await starter.readEvents(runId, { timeoutMs: 60_000 });
      expect(statusOf(events)).toBe('succeeded');
      expect(textOf(events)).toContain(`done /${name}`);
    }
    expect(hits.filter((hit) => hit === '/alpha' || hit === '/bravo')).toEqual(['/alpha', '/bravo']);
  });

  it('runs through the shared origin all finish, served by both APIs', async () => {
    const before = [...proxy.hits];
    const runIds = await Promise.all(Array.from({ length: 6 }, (_, index) => startRun(viaProxy, `stream ${index}`)));
    const results = await Promise.all(runIds.map((runId) => viaProxy.readEvents(runId, { timeoutMs: 60_000 })));
    for (const { events } of results) expect(statusOf(events)).toBe('succeeded');
    expect(proxy.hits[0]! - before[0]!).toBeGreaterThan(0);
    expect(proxy.hits[1]! - before[1]!).toBeGreaterThan(0);
  });

  it('login throttling holds across API processes: failures on either count against one limit (Redis)', async () => {
    const admin = await ApiClient.login(stack.apiUrls[0]!, stack.admin);
    const victim = { email: `throttled-${Date.now()}@test.local`, password: 'victim-password-1' };
    expect((await admin.post('/api/users', { ...victim, name: 'Victim' })).status).toBe(201);
    // The loopback peer is a trusted proxy: a client address of this test's own.
    const login = (baseUrl: string, password: string) =>
      fetch(`${baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.77' },
        body: JSON.stringify({ email: victim.email, password }),
      });
    const [first, second] = stack.apiUrls as [string, string];
    // The production limit is 10 failures per account in 15 minutes; half of them on each process.
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 10; attempt++) statuses.push((await login(attempt % 2 === 0 ? first : second, `wrong-${attempt}`)).status);
    expect(statuses).toEqual(Array(10).fill(401));
    for (const baseUrl of [first, second]) {
      const refused = await login(baseUrl, victim.password);
      expect(refused.status, baseUrl).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('every API counts the workers of every process, and the worker health command sees them', async () => {
    const pids = stack.workers.map((worker) => worker.child.pid);
    for (const client of viaApi) {
      const admin = await ApiClient.login(client.baseUrl, stack.admin);
      // What the workers dashboard polls ("workers online"), and the workers list.
      const overview = await admin.get('/api/admin/overview');
      expect(overview.status).toBe(200);
      expect((overview.body.workers.items as { pid: number }[]).map((item) => item.pid).sort()).toEqual([...pids].sort());
      const workers = await admin.get('/api/admin/workers');
      expect(workers.status).toBe(200);
      expect((workers.body.items as { pid: number }[]).map((item) => item.pid).sort()).toEqual([...pids].sort());
      const ready = await fetch(`${client.baseUrl}/api/ready`);
      expect((await ready.json()).workers).toMatchObject({ ok: true, count: 3 });
    }
    const health = (prefix: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'worker/src/health.ts'], { cwd: repoRoot, env: { ...process.env, REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', QUEUE_PREFIX: prefix }, encoding: 'utf8' });
    const healthy = health(stack.prefix);
    expect(healthy.status, healthy.stderr).toBe(0);
    expect(healthy.stdout).toContain(`pid ${pids[0]}`);
    const nobody = health(`${stack.prefix}-nobody`);
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toContain('unhealthy: no worker heartbeat');
  });
});
