import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';
import { byLastUserMessage } from '../fake-llm/scripts';
import { ApiClient } from '../testing/api-client';
import { rebuildMessage } from '../testing/rebuild-message';
import { startProcessStack, type ProcessStack } from '../testing/process-stack';

const INTERRUPTED = 'interrupted: the previous attempt may or may not have taken effect; check before trying again';
const ANSWER = 'I could not confirm the payment; please check your account before paying again.';

let stack: ProcessStack;
let llm: FakeLlm;
let server: Server;
const payments: { idempotencyKey: string | undefined }[] = [];
const gets: string[] = [];
let targetOrigin = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.method === 'POST') {
      // The side effect happens on arrival; the answer is slow, so the worker can be killed mid-call.
      payments.push({ idempotencyKey: request.headers['idempotency-key'] as string | undefined });
      setTimeout(() => response.end('paid'), 4000);
      return;
    }
    gets.push(request.url ?? '');
    setTimeout(() => response.end('balance: 10'), 4000);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  targetOrigin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  llm = await startFakeLlm({
    script: byLastUserMessage([
      { match: /pay/i, reply: [{ text: 'Paying now.', toolCalls: [{ name: 'bank', input: { url: `${targetOrigin}/pay`, method: 'POST' } }] }, { text: ANSWER }] },
      { match: /balance/i, reply: [{ toolCalls: [{ name: 'bank', input: { url: `${targetOrigin}/balance`, method: 'GET' } }] }, { text: 'Your balance is 10.' }] },
    ]),
  });
  stack = await startProcessStack({ workers: 1, workerEnv: { WORKER_LOCK_DURATION_MS: '2000', WORKER_STALLED_INTERVAL_MS: '1000' } });
  const admin = await ApiClient.login(stack.apiUrl, stack.admin);
  await admin.post('/api/models', { name: 'Fake', baseUrl: llm.url, modelId: 'fake-model' });
  await admin.post('/api/agent-tools', { name: 'Bank', slug: 'bank', type: 'fetch', config: { parseMode: 'raw' } });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await llm?.close();
  server?.close();
});

async function killWorkerAndStartAnother() {
  const worker = stack.workers.at(-1)!;
  await worker.stop('SIGKILL');
  return stack.startWorker();
}

describe('a worker SIGKILLed mid tool call', () => {
  it('does not repeat a non-idempotent call: the model and the chat see it as interrupted, and the answer appears once', async () => {
    const client = await ApiClient.login(stack.apiUrl, stack.admin);
    const session = await client.post('/api/sessions', {});
    const { body } = await client.post(`/api/sessions/${session.body.id}/runs`, { content: 'pay my bill' });
    const streamed = client.readEvents(body.runId, { timeoutMs: 90_000 });
    await expect.poll(() => payments.length, { timeout: 30_000 }).toBe(1);
    await killWorkerAndStartAnother();

    const { events, done } = await streamed;
    expect(done).toBe(true);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    // Not repeated: exactly one request reached the server, and it carried the call's key.
    expect(payments).toHaveLength(1);
    expect(payments[0]!.idempotencyKey).toMatch(new RegExp(`^${body.runId}:`));

    const run = (await client.get(`/api/runs/${body.runId}`)).body;
    expect(run.status).toBe('succeeded');
    const rebuilt = await rebuildMessage(events);
    const text = rebuilt.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text).join('');
    expect(text.split(ANSWER)).toHaveLength(2);
    const toolPart = rebuilt.parts.find((part) => part.type === 'tool-bank') as { output?: { interrupted?: boolean; error?: string } };
    expect(toolPart.output).toMatchObject({ interrupted: true, error: INTERRUPTED });
    const persisted = (await client.get(`/api/sessions/${session.body.id}`)).body.messages.find((message: { role: string }) => message.role === 'assistant');
    expect(persisted.parts).toEqual(rebuilt.parts);

    const { timeline } = (await client.get(`/api/admin/runs/${body.runId}`)).body;
    const calls = (timeline.steps as { toolCalls: { toolName: string; status: string }[] }[]).flatMap((step) => step.toolCalls);
    expect(calls).toEqual([expect.objectContaining({ toolName: 'bank', status: 'interrupted' })]);
  }, 120_000);

  it('re-executes an idempotent call after the kill and answers once', async () => {
    const client = await ApiClient.login(stack.apiUrl, stack.admin);
    const session = await client.post('/api/sessions', {});
    const { body } = await client.post(`/api/sessions/${session.body.id}/runs`, { content: 'what is my balance' });
    const streamed = client.readEvents(body.runId, { timeoutMs: 90_000 });
    await expect.poll(() => gets.length, { timeout: 30_000 }).toBe(1);
    await killWorkerAndStartAnother();
    const { events, done } = await streamed;
    expect(done).toBe(true);
    expect(gets).toHaveLength(2);
    expect((await client.get(`/api/runs/${body.runId}`)).body.status).toBe('succeeded');
    const rebuilt = await rebuildMessage(events);
    const text = rebuilt.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text).join('');
    expect(text).toBe('Your balance is 10.');
  }, 120_000);
});

describe('a worker stopped with SIGTERM during a tool call', () => {
  it('lets the call finish within the shutdown deadline: the run completes and nothing runs twice', async () => {
    for (const worker of stack.workers) await worker.stop('SIGKILL');
    const worker = await stack.startWorker({ WORKER_SHUTDOWN_DEADLINE_MS: '20000' });
    const client = await ApiClient.login(stack.apiUrl, stack.admin);
    const session = await client.post('/api/sessions', {});
    const before = payments.length;
    const { body } = await client.post(`/api/sessions/${session.body.id}/runs`, { content: 'pay the rent' });
    const streamed = client.readEvents(body.runId, { timeoutMs: 90_000 });
    await expect.poll(() => payments.length, { timeout: 30_000 }).toBe(before + 1);
    const stopped = worker.stop('SIGTERM');
    const { done } = await streamed;
    await stopped;
    expect(done).toBe(true);
    expect(worker.child.exitCode).toBe(0);
    expect(payments.length).toBe(before + 1);
    expect((await client.get(`/api/runs/${body.runId}`)).body.status).toBe('succeeded');
  }, 120_000);

  it('past the deadline aborts the call, journals it interrupted and hands the run over without repeating it', async () => {
    const worker = await stack.startWorker({ WORKER_SHUTDOWN_DEADLINE_MS: '500' });
    const client = await ApiClient.login(stack.apiUrl, stack.admin);
    const session = await client.post('/api/sessions', {});
    const before = payments.length;
    const { body } = await client.post(`/api/sessions/${session.body.id}/runs`, { content: 'pay the phone bill' });
    const streamed = client.readEvents(body.runId, { timeoutMs: 90_000 });
    await expect.poll(() => payments.length, { timeout: 30_000 }).toBe(before + 1);
    await worker.stop('SIGTERM');
    expect(worker.child.exitCode).toBe(0);
    // Written at exit with the rest of the batched log lines; the pipe may deliver them after the exit event.
    await expect.poll(() => worker.output(), { timeout: 5_000 }).toContain('run handed over by a stopping worker');
    await stack.startWorker();
    const { events, done } = await streamed;
    expect(done).toBe(true);
    expect(payments.length).toBe(before + 1);
    expect((await client.get(`/api/runs/${body.runId}`)).body.status).toBe('succeeded');
    const rebuilt = await rebuildMessage(events);
    expect(rebuilt.parts.find((part) => part.type === 'tool-bank')).toMatchObject({ output: { interrupted: true } });
  }, 120_000);
});
