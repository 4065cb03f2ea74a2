import { createServer, type Server } from 'node:http';
import type { RunEvent } from '@agentq/shared/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';
import { byLastUserMessage } from '../fake-llm/scripts';
import { ApiClient } from '../testing/api-client';
import { rebuildMessage as rebuild } from '../testing/rebuild-message';
import { startProcessStack, type ProcessStack } from '../testing/process-stack';

let stack: ProcessStack;
let llm: FakeLlm;
let server: Server;
let sideEffects = 0;
let targetUrl = '';


beforeAll(async () => {
  server = createServer((request, response) => {
    sideEffects++;
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(`order #${sideEffects} placed`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  targetUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/order`;
  llm = await startFakeLlm({
    script: byLastUserMessage([
      {
        match: /order/i,
        // After the tool result the model is slow, so the worker can be killed mid-run.
        reply: [{ toolCalls: [{ name: 'order', input: { url: targetUrl, method: 'POST' } }] }, { text: 'Your order is placed.', latency: { timeToFirstTokenMs: 2500 } }],
      },
    ]),
  });
  stack = await startProcessStack({ workers: 1, workerEnv: { WORKER_LOCK_DURATION_MS: '2000', WORKER_STALLED_INTERVAL_MS: '1000' } });
  const admin = await ApiClient.login(stack.apiUrl, stack.admin);
  await admin.post('/api/models', { name: 'Fake', baseUrl: llm.url, modelId: 'fake-model' });
  await admin.post('/api/agent-tools', { name: 'Order', slug: 'order', type: 'fetch', config: { parseMode: 'raw' } });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await llm?.close();
  server?.close();
});

describe('a worker killed mid-run', () => {
  it('hands the run to another worker, which finishes it without repeating the side-effecting tool call', async () => {
    const client = await ApiClient.login(stack.apiUrl, stack.admin);
    const session = await client.post('/api/sessions', {});
    const { body } = await client.post(`/api/sessions/${session.body.id}/runs`, { content: 'place my order' });

    const streamed = client.readEvents(body.runId, { timeoutMs: 60_000 });
    await expect.poll(() => sideEffects, { timeout: 20_000 }).toBe(1);
    // Let the tool result be recorded, then kill the worker while the model is still thinking.
    await expect.poll(async () => (await client.get(`/api/tool-logs?runId=${body.runId}`)).body.total ?? 0, { timeout: 10_000 }).toBe(1);
    const [first] = stack.workers;
    await first!.stop('SIGKILL');
    expect((await client.get(`/api/runs/${body.runId}`)).body.status).toBe('running');
    const second = await stack.startWorker();

    const { events, done } = await streamed;
    expect(done).toBe(true);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const final = events.filter((event) => event.chunk.type === 'data-run-status').map((event) => (event.chunk as { data: { status: string } }).data);
    expect(final.some((status) => (status as { resumed?: boolean }).resumed)).toBe(true);
    expect(final.at(-1)!.status).toBe('succeeded');
    expect(sideEffects).toBe(1);
    await expect.poll(() => second.output(), { timeout: 5000 }).toContain(body.runId);

    const rebuilt = await rebuild(events);
    const sessionView = await client.get(`/api/sessions/${session.body.id}`);
    const persisted = sessionView.body.messages.find((message: { role: string }) => message.role === 'assistant');
    expect(persisted.parts).toEqual(rebuilt.parts);
    const text = rebuilt.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text).join('');
    expect(text).toContain('Your order is placed.');
    const logs = await client.get(`/api/tool-logs?runId=${body.runId}`);
    expect(logs.body.total).toBe(1);

    // The operators' timeline: the tool call once, succeeded, and the step the second worker finished.
    // (Where the first step ends depends on when the kill lands: it may be recorded as interrupted or complete.)
    const { timeline } = (await client.get(`/api/admin/runs/${body.runId}`)).body;
    const steps = timeline.steps as { finishReason?: string; interrupted?: boolean; toolCalls: { toolName: string; status: string }[] }[];
    expect(steps.flatMap((step) => step.toolCalls)).toEqual([expect.objectContaining({ toolName: 'order', status: 'success' })]);
    expect(steps.at(-1)).toMatchObject({ finishReason: 'stop', toolCalls: [] });
  });
});
