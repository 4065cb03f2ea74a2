import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';
import { byLastUserMessage, toolResultsSinceLastUserMessage } from '../fake-llm/scripts';
import { ApiClient } from '../testing/api-client';
import { startProcessStack, type ProcessStack } from '../testing/process-stack';

const METRICS_TOKEN = 'e2e-metrics-token-0123456789abcdef';
const MODEL_API_KEY = 'sk-e2e-never-in-a-log-0123456789';

let stack: ProcessStack;
let llm: FakeLlm;
let admin: ApiClient;
let user: ApiClient;

/** One sample of the Prometheus text: the first line of `name` whose labels include `labels`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length, line.lastIndexOf('}') + 1);
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

async function scrape(headers: Record<string, string> = { authorization: `Bearer ${METRICS_TOKEN}` }) {
  const response = await fetch(`${stack.apiUrl}/metrics`, { headers });
  return { status: response.status, text: await response.text() };
}

async function startRun(content: string) {
  const session = await user.post('/api/sessions', {});
  const run = await user.post(`/api/sessions/${session.body.id}/runs`, { content });
  expect(run.status).toBe(202);
  return run.body.runId as string;
}

async function waitForRun(runId: string, status: string) {
  await expect.poll(async () => (await user.get(`/api/runs/${runId}`)).body.status, { timeout: 20_000, interval: 100 }).toBe(status);
}

beforeAll(async () => {
  llm = await startFakeLlm({
    script: byLastUserMessage([
      {
        match: /^multiply/i,
        reply: (request) =>
          toolResultsSinceLastUserMessage(request).length
            ? { text: `The product is ${toolResultsSinceLastUserMessage(request)[0]!.content}.`, latency: { timeToFirstTokenMs: 150 } }
            : { toolCalls: [{ name: 'calc', input: { expression: '6*7' } }], latency: { timeToFirstTokenMs: 100 } },
      },
      {
        match: /^guarded/i,
        reply: (request) => (toolResultsSinceLastUserMessage(request).length ? { text: 'Guarded done.' } : { toolCalls: [{ name: 'guarded_calc', input: { expression: '2+2' } }] }),
      },
    ]),
  });
  stack = await startProcessStack({ workers: 1, env: { METRICS_TOKEN } });
  admin = await ApiClient.login(stack.apiUrl, stack.admin);
  expect((await admin.post('/api/models', { name: 'Fake', baseUrl: llm.url, modelId: 'fake-model', apiKey: MODEL_API_KEY })).status).toBe(201);
  expect((await admin.post('/api/agent-tools', { name: 'Calc', slug: 'calc', type: 'calculator' })).status).toBe(201);
  expect((await admin.post('/api/agent-tools', { name: 'Guarded calc', slug: 'guarded_calc', type: 'calculator', needsApproval: true })).status).toBe(201);
  const credentials = { email: `ops-${Date.now()}@test.local`, password: 'user-password-1' };
  expect((await admin.post('/api/users', { ...credentials, name: 'Operator test user' })).status).toBe(201);
  user = await ApiClient.login(stack.apiUrl, credentials);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await llm?.close();
});

describe('operations across real API and worker processes', () => {
  it('readiness reports the worker process from its heartbeat', async () => {
    await expect.poll(async () => (await (await fetch(`${stack.apiUrl}/api/ready`)).json()).workers, { timeout: 10_000 }).toMatchObject({ ok: true, count: 1 });
    const { items } = (await admin.get('/api/admin/workers')).body;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ pid: stack.workers[0]!.child.pid, concurrency: 8, queues: ['chat-turns', 'tool-executions', 'schedule-fires', 'webhook-deliveries', 'knowledge-ingestions', 'account-emails'] });
  });

  it('a chat run with a tool call gets a step timeline: model latency, tokens, the tool call with its duration and status', async () => {
    const runId = await startRun('multiply six by seven');
    await waitForRun(runId, 'succeeded');
    const detail = await admin.get(`/api/admin/runs/${runId}`);
    expect(detail.status).toBe(200);
    const { run, timeline, toolLogs } = detail.body;
    expect(run).toMatchObject({ id: runId, status: 'succeeded', steps: 2 });
    expect(timeline.steps).toHaveLength(2);
    const [first, second] = timeline.steps;
    expect(first).toMatchObject({ step: 1, finishReason: 'tool-calls' });
    expect(first.modelLatencyMs).toBeGreaterThanOrEqual(100);
    expect(first.usage.totalTokens).toBeGreaterThan(0);
    expect(first.toolCalls).toEqual([expect.objectContaining({ toolName: 'calc', status: 'success' })]);
    expect(first.toolCalls[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(second).toMatchObject({ step: 2, finishReason: 'stop' });
    expect(second.timeToFirstOutputMs).toBeGreaterThanOrEqual(150);
    expect(toolLogs).toEqual([expect.objectContaining({ toolSlug: 'calc', status: 'success', toolCallId: first.toolCalls[0].toolCallId })]);

    const table = await admin.get(`/api/admin/runs?status=succeeded&kind=chat`);
    expect(table.body.items.find((row: { id: string }) => row.id === runId)).toMatchObject({ userEmail: expect.stringMatching(/^ops-/), steps: 2 });
  });

  it('a parked run counts as parked for approval, and the timeline keeps the approval wait', async () => {
    const runId = await startRun('guarded sum');
    await waitForRun(runId, 'awaiting_approval');
    const chat = () => admin.get('/api/admin/queues').then((response) => response.body.items.find((queue: { name: string }) => queue.name === 'chat-turns'));
    await expect.poll(async () => (await chat()).counts, { timeout: 10_000 }).toMatchObject({ parked: 1, delayed: 0, active: 0 });
    expect(sample((await scrape()).text, 'agentq_queue_jobs', { queue: 'chat-turns', state: 'parked' })).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 300));
    const [approval] = (await user.get(`/api/approvals?runId=${runId}`)).body.items;
    expect((await user.post(`/api/approvals/${approval.id}`, { decision: 'approve' })).status).toBe(200);
    await waitForRun(runId, 'succeeded');
    const { timeline } = (await admin.get(`/api/admin/runs/${runId}`)).body;
    const approvals = timeline.steps.flatMap((step: { approvals: unknown[] }) => step.approvals);
    expect(approvals).toEqual([expect.objectContaining({ toolName: 'guarded_calc', status: 'approved' })]);
    expect((approvals[0] as { waitMs: number }).waitMs).toBeGreaterThanOrEqual(300);
    expect((await chat()).counts.parked).toBe(0);
  });

  it('/metrics shows runs by status, tool executions by type and status and HTTP requests, to the token or an admin only', async () => {
    const anonymous = await scrape({});
    expect(anonymous.status).toBe(401);
    expect((await scrape({ cookie: user.cookieHeader })).status).toBe(403);
    expect((await scrape({ cookie: admin.cookieHeader })).status).toBe(200);

    const { status, text } = await scrape();
    expect(status).toBe(200);
    expect(sample(text, 'agentq_runs', { kind: 'chat', status: 'succeeded' })).toBe(2);
    expect(sample(text, 'agentq_runs', { kind: 'chat', status: 'awaiting_approval' })).toBe(0);
    // Executed by the worker process, read from PostgreSQL by the API.
    expect(sample(text, 'agentq_tool_executions_total', { type: 'calculator', status: 'success' })).toBe(2);
    expect(sample(text, 'agentq_tool_execution_duration_seconds_count', { type: 'calculator', status: 'success' })).toBe(2);
    expect(sample(text, 'agentq_http_requests_total', { method: 'POST', route: '/api/sessions/:id/runs', status: '202' })).toBe(2);
    expect(sample(text, 'agentq_http_requests_total', { method: 'GET', route: '/api/admin/runs/:id', status: '200' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'agentq_queue_jobs', { queue: 'chat-turns', state: 'completed' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'agentq_queue_jobs_processed_total', { queue: 'chat-turns', result: 'completed' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'agentq_workers_online', {}) ?? Number(/^agentq_workers_online (\d+)$/m.exec(text)?.[1])).toBe(1);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('bull-board is for admins only', async () => {
    expect((await fetch(`${stack.apiUrl}/admin/queues`, { headers: { cookie: user.cookieHeader } })).status).toBe(403);
    expect((await fetch(`${stack.apiUrl}/admin/queues/api/queues`)).status).toBe(401);
    const board = await fetch(`${stack.apiUrl}/admin/queues`, { headers: { cookie: admin.cookieHeader } });
    expect(board.status).toBe(200);
    expect(await board.text()).toContain('agentq queues');
  });

  it('logs JSON with a request id on API lines and run and job ids on worker lines, and no secrets', async () => {
    const jsonLines = (output: string) =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    // Info lines are written in batches (at most 200 ms late): wait for the last runs' lines.
    await expect.poll(() => jsonLines(stack.workers[0]!.output()).filter((line) => line.msg === 'run finished').length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    await expect.poll(() => jsonLines(stack.api.output()).some((line) => line.msg === 'request' && line.route === '/api/sessions/:id/runs' && line.status === 202), { timeout: 5_000 }).toBe(true);
    const requests = jsonLines(stack.api.output()).filter((line) => line.msg === 'request');
    expect(requests.length).toBeGreaterThan(5);
    for (const line of requests) expect(line).toMatchObject({ requestId: expect.any(String), method: expect.any(String), route: expect.any(String), status: expect.any(Number), durationMs: expect.any(Number) });
    expect(requests.some((line) => line.route === '/api/sessions/:id/runs' && line.status === 202)).toBe(true);

    const finished = jsonLines(stack.workers[0]!.output()).filter((line) => line.msg === 'run finished');
    for (const line of finished) expect(line).toMatchObject({ runId: expect.stringMatching(/^run_/), jobId: expect.any(String), queue: 'chat-turns' });

    for (const output of [stack.api.output(), stack.workers[0]!.output()]) {
      expect(output).not.toContain(MODEL_API_KEY);
      expect(output).not.toContain(METRICS_TOKEN);
      expect(output).not.toContain(admin.cookieHeader.split('=')[1]!);
    }
  });
});
