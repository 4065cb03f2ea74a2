import { agentTools, messages } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { createToolRun, executeTool, finishToolRun } from '@agentq/shared/services';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

const METRICS_TOKEN = 'prometheus-scrape-token-0123456789';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let user: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  t = await createTestApp({ metricsToken: METRICS_TOKEN });
  admin = await t.signUp('admin');
  user = await t.signUp('user');
});

afterAll(async () => {
  await t.close();
});

/** The value of one sample line, e.g. sample(text, 'agentq_runs', { kind: 'chat', status: 'failed' }). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).split(' ')[0] ?? '';
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

describe('/metrics access', () => {
  it('answers 401 anonymous or with a wrong token, 403 for a non-admin', async () => {
    expect((await t.app.request('/metrics')).status).toBe(401);
    expect((await t.app.request('/metrics', { headers: { authorization: 'Bearer not-the-token-at-all' } })).status).toBe(401);
    expect((await t.app.request('/metrics', { headers: user.headers })).status).toBe(403);
  });

  it('serves the Prometheus text format to the metrics token and to an admin session', async () => {
    const scraped = await t.app.request('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    expect(await scraped.text()).toContain('# TYPE agentq_http_requests_total counter');
    expect((await t.app.request('/metrics', { headers: admin.headers })).status).toBe(200);
  });

  it('without METRICS_TOKEN configured no bearer value opens it', async () => {
    const other = await createTestApp();
    try {
      expect((await other.app.request('/metrics', { headers: { authorization: 'Bearer undefined' } })).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('/metrics content', () => {
  it('counts HTTP requests by route pattern and status, never by raw URL', async () => {
    await t.app.request('/api/runs/run_abc', { headers: user.headers });
    await t.app.request('/api/runs/run_def', { headers: user.headers });
    await t.app.request('/api/nothing/here', { headers: user.headers });
    const text = await (await t.app.request('/metrics', { headers: admin.headers })).text();
    expect(sample(text, 'agentq_http_requests_total', { method: 'GET', route: '/api/runs/:id', status: '404' })).toBe(2);
    expect(sample(text, 'agentq_http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('run_abc');
    expect(sample(text, 'agentq_http_request_duration_seconds_count', { route: '/api/runs/:id', status: '404' })).toBe(2);
    expect(text).toMatch(/agentq_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/runs\/:id",status="404"\}/);
  });

  it('reads runs by status and tool executions by type and status from PostgreSQL at scrape time', async () => {
    const before = await (await t.app.request('/metrics', { headers: admin.headers })).text();
    const runsBefore = sample(before, 'agentq_runs', { kind: 'tool', status: 'succeeded' }) ?? 0;
    const executionsBefore = sample(before, 'agentq_tool_executions_total', { type: 'calculator', status: 'success' }) ?? 0;

    // What a worker process does for a standalone execution: the log row and the finished run.
    const created = await t.app.request('/api/agent-tools', { method: 'POST', headers: admin.headers, body: JSON.stringify({ name: 'Calc', slug: `calc_${Date.now().toString(36)}`, type: 'calculator' }) });
    const { id: toolId } = await created.json();
    const [tool] = await t.db.select().from(agentTools).where(eq(agentTools.id, toolId));
    const run = await createToolRun(t.db, { userId: admin.user.id, toolId, input: { expression: '6*7' } });
    const result = await executeTool(t.db, { tool: tool!, input: { expression: '6*7' }, context: { userId: admin.user.id, runId: run.id, sessionId: null, toolCallId: 'standalone', allowPrivateNetworks: false, services: { db: t.db } } });
    expect(result.success).toBe(true);
    await finishToolRun(t.db, run.id, result);

    const text = await (await t.app.request('/metrics', { headers: admin.headers })).text();
    expect(sample(text, 'agentq_runs', { kind: 'tool', status: 'succeeded' })).toBe(runsBefore + 1);
    // Statuses with no runs read 0 instead of vanishing.
    expect(sample(text, 'agentq_runs', { kind: 'chat', status: 'awaiting_approval' })).toBeTypeOf('number');
    expect(sample(text, 'agentq_tool_executions_total', { type: 'calculator', status: 'success' })).toBe(executionsBefore + 1);
    expect(text).toContain('# TYPE agentq_tool_execution_duration_seconds histogram');
    expect(sample(text, 'agentq_tool_execution_duration_seconds_bucket', { type: 'calculator', status: 'success', le: '+Inf' })).toBe(executionsBefore + 1);
    expect(sample(text, 'agentq_tool_execution_duration_seconds_count', { type: 'calculator', status: 'success' })).toBe(executionsBefore + 1);
    for (const state of ['waiting', 'active', 'delayed', 'parked', 'failed', 'completed']) {
      expect(sample(text, 'agentq_queue_jobs', { queue: 'chat-turns', state }), state).toBeTypeOf('number');
    }
    expect(sample(text, 'agentq_metrics_collector_up', { collector: 'tool_executions' })).toBe(1);
    expect(sample(text, 'agentq_metrics_collector_up', { collector: 'queues' })).toBe(1);
  });

  it('counts answers users rated, by rating', async () => {
    const session = await (await t.app.request('/api/sessions', { method: 'POST', headers: user.headers, body: '{}' })).json();
    const messageId = newId('message');
    await t.db.insert(messages).values({ id: messageId, sessionId: session.id, role: 'assistant', parts: [{ type: 'text', text: 'An answer' }] });
    const rated = await t.app.request(`/api/sessions/${session.id}/messages/${messageId}/feedback`, { method: 'PUT', headers: user.headers, body: JSON.stringify({ rating: 'down' }) });
    expect(rated.status).toBe(200);
    const text = await (await t.app.request('/metrics', { headers: admin.headers })).text();
    // Other test files rate answers in the same database meanwhile: this one's rating is among them.
    expect(sample(text, 'agentq_answer_ratings', { rating: 'down' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'agentq_answer_ratings', { rating: 'up' })).toBeTypeOf('number');
    expect(sample(text, 'agentq_metrics_collector_up', { collector: 'feedback' })).toBe(1);
  });

  it('keeps one registry per app, so two apps do not share counters', async () => {
    const other = await createTestApp({ metricsToken: METRICS_TOKEN });
    try {
      const text = await (await other.app.request('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      expect(sample(text, 'agentq_http_requests_total', { route: '/api/runs/:id' })).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});
