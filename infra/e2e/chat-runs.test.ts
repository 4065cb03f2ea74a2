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
let admin: ApiClient;
let user: ApiClient;
let page: Server;
let pageUrl = '';
let pageHits = 0;


function runStatus(events: RunEvent[]) {
  return events.filter((event) => event.chunk.type === 'data-run-status').map((event) => (event.chunk as { data: { status: string } }).data).at(-1);
}

function expectGapFree(events: RunEvent[], from = 1) {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => from + index));
}

async function newSession(client = user) {
  const response = await client.post('/api/sessions', {});
  expect(response.status).toBe(201);
  return response.body.id as string;
}

async function send(sessionId: string, content: string, extra: Record<string, unknown> = {}, client = user, headers?: Record<string, string>) {
  return client.post(`/api/sessions/${sessionId}/runs`, { content, ...extra }, headers);
}

beforeAll(async () => {
  page = createServer((request, response) => {
    pageHits++;
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<html><body><h1>Weather report</h1><p>Sunny, 21 degrees.</p></body></html>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  const address = page.address();
  pageUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/weather`;

  llm = await startFakeLlm({
    script: byLastUserMessage([
      { match: /^hello/i, reply: { text: 'Hello! How can I **help**?' } },
      { match: /^think/i, reply: { reasoning: 'Let me consider this carefully.', text: 'Thought it through.' } },
      { match: /^weather/i, reply: [{ toolCalls: [{ name: 'web', input: { url: pageUrl } }] }, { text: 'It is sunny and 21 degrees.' }] },
      { match: /^broken tool/i, reply: [{ toolCalls: [{ name: 'web', input: { url: 'http://127.0.0.1:1/nothing' } }] }, { text: 'The page could not be fetched.' }] },
      { match: /^loop/i, reply: (request) => (request.tools?.length ? { toolCalls: [{ name: 'calc', input: { expression: '1+1' } }] } : { text: 'Final answer without tools.' }) },
      { match: /^empty/i, reply: { text: '' } },
      { match: /^slow/i, reply: { text: 'word '.repeat(200), latency: { timeToFirstTokenMs: 50, interTokenMs: 20, tokenCount: 200 } } },
    ]),
  });
  stack = await startProcessStack({ workers: 1 });
  admin = await ApiClient.login(stack.apiUrl, stack.admin);
  const model = await admin.post('/api/models', { name: 'Fake', baseUrl: llm.url, modelId: 'fake-model', apiKey: 'sk-fake' });
  expect(model.status).toBe(201);
  expect((await admin.post('/api/agent-tools', { name: 'Web', slug: 'web', type: 'fetch' })).status).toBe(201);
  expect((await admin.post('/api/agent-tools', { name: 'Calc', slug: 'calc', type: 'calculator' })).status).toBe(201);
  const credentials = { email: `chat-${Date.now()}@test.local`, password: 'user-password-1' };
  expect((await admin.post('/api/users', { ...credentials, name: 'Chatter' })).status).toBe(201);
  user = await ApiClient.login(stack.apiUrl, credentials);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await llm?.close();
  page?.close();
});

describe('chat runs through the queue', () => {
  it('streams a text run over SSE with gap-free sequence numbers and persists the message', async () => {
    const sessionId = await newSession();
    const started = await send(sessionId, 'hello there');
    expect(started.status).toBe(202);
    expect(started.body.eventsUrl).toBe(`/api/runs/${started.body.runId}/events`);
    const { events, done } = await user.readEvents(started.body.runId);
    expect(done).toBe(true);
    expectGapFree(events);
    expect(events[0]!.chunk.type).toBe('start');
    expect(events.at(-1)!.chunk.type).toBe('finish');
    expect(runStatus(events)?.status).toBe('succeeded');
    const rebuilt = await rebuild(events);
    const text = rebuilt.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text).join('');
    expect(text).toBe('Hello! How can I **help**?');

    const session = await user.get(`/api/sessions/${sessionId}`);
    expect(session.body.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant']);
    expect(session.body.messages[1].parts).toEqual(rebuilt.parts);
    const run = await user.get(`/api/runs/${started.body.runId}`);
    expect(run.body).toMatchObject({ status: 'succeeded', finishReason: 'stop', steps: 1 });
    expect(run.body.usage.outputTokens).toBeGreaterThan(0);
  });
});

describe('tools, reasoning and limits', () => {
  it('runs a fetch tool against a loopback page: the call card gets input, output with status and size, then the answer', async () => {
    const sessionId = await newSession();
    const hitsBefore = pageHits;
    const { body } = await send(sessionId, 'weather please');
    const { events } = await user.readEvents(body.runId);
    expectGapFree(events);
    const types = events.map((event) => event.chunk.type);
    expect(types).toContain('tool-input-available');
    const output = events.find((event) => event.chunk.type === 'tool-output-available')!.chunk as { output: { success: boolean; text: string; metadata: { statusCode: number; responseSize: number }; durationMs: number } };
    expect(output.output.success).toBe(true);
    expect(output.output.text).toMatch(/^\[web result HTTP 200 \d+ bytes\]/);
    expect(output.output.text).toContain('Weather report');
    expect(output.output.metadata.statusCode).toBe(200);
    expect(pageHits).toBe(hitsBefore + 1);
    expect(runStatus(events)).toMatchObject({ status: 'succeeded', steps: 2 });
    const rebuilt = await rebuild(events);
    expect(rebuilt.parts.some((part) => part.type === 'tool-web' && (part as { state: string }).state === 'output-available')).toBe(true);
    // The model's second request carried the tool result it was given.
    const followUp = llm.requests.filter((request) => JSON.stringify(request.messages).includes('Weather report'));
    expect(followUp.length).toBeGreaterThan(0);
  });

  it('streams reasoning whose end carries a duration', async () => {
    const { body } = await send(await newSession(), 'think about it');
    const { events } = await user.readEvents(body.runId);
    const deltas = events.filter((event) => event.chunk.type === 'reasoning-delta').map((event) => (event.chunk as { delta: string }).delta).join('');
    expect(deltas).toBe('Let me consider this carefully.');
    const end = events.find((event) => event.chunk.type === 'reasoning-end')!.chunk as { providerMetadata: { agentq: { durationMs: number } } };
    expect(end.providerMetadata.agentq.durationMs).toBeGreaterThanOrEqual(0);
    const rebuilt = await rebuild(events);
    expect(rebuilt.parts.find((part) => part.type === 'reasoning')).toBeTruthy();
  });

  it('tells the model to stop retrying when a tool fails', async () => {
    const { body } = await send(await newSession(), 'broken tool please');
    const { events } = await user.readEvents(body.runId);
    const output = events.find((event) => event.chunk.type === 'tool-output-available')!.chunk as { output: { success: boolean; text: string } };
    expect(output.output.success).toBe(false);
    expect(output.output.text).toMatch(/^Tool execution failed: .*Do not call web again/);
    const toolMessage = llm.requests.flatMap((request) => request.messages).find((message) => message.role === 'tool' && JSON.stringify(message).includes('Tool execution failed'));
    expect(toolMessage).toBeTruthy();
    expect(runStatus(events)?.status).toBe('succeeded');
  });

  it('spends the step limit on tools, then answers once without tools and flags the limit', async () => {
    const tools = (await admin.get('/api/agent-tools')).body.items as { id: string; slug: string }[];
    const calc = tools.find((tool) => tool.slug === 'calc')!;
    const agent = await admin.post('/api/agents', { name: 'Tight', maxSteps: 2, tools: [{ toolId: calc.id }] });
    expect(agent.status).toBe(201);
    const { body } = await send(await newSession(), 'loop forever', { agentId: agent.body.id });
    const { events } = await user.readEvents(body.runId);
    const status = runStatus(events) as { status: string; hitStepLimit: boolean; steps: number };
    expect(status).toMatchObject({ status: 'succeeded', hitStepLimit: true, steps: 3 });
    const rebuilt = await rebuild(events);
    const text = rebuilt.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text).join('');
    expect(text).toContain('Final answer without tools.');
    expect(llm.requests.at(-1)!.tools ?? []).toHaveLength(0);
    const run = await user.get(`/api/runs/${body.runId}`);
    expect(run.body.hitStepLimit).toBe(true);
  });

  it('fails a run whose model returns no content, with a clear error', async () => {
    const { body } = await send(await newSession(), 'empty answer');
    const { events } = await user.readEvents(body.runId);
    expect(runStatus(events)?.status).toBe('failed');
    const error = events.find((event) => event.chunk.type === 'error')!.chunk as { errorText: string };
    expect(error.errorText).toMatch(/no content/i);
    const run = await user.get(`/api/runs/${body.runId}`);
    expect(run.body).toMatchObject({ status: 'failed' });
    expect(run.body.error).toMatch(/no content/i);
  });
});

describe('control and isolation', () => {
  it('cancels mid-stream, keeping partial output', async () => {
    const sessionId = await newSession();
    const { body } = await send(sessionId, 'slow story');
    const firstText = await user.readEvents(body.runId, { until: (event) => event.chunk.type === 'text-delta' });
    expect(firstText.events.length).toBeGreaterThan(0);
    const cancel = await user.post(`/api/runs/${body.runId}/cancel`);
    expect(cancel.status).toBe(202);
    const { events } = await user.readEvents(body.runId);
    expect(runStatus(events)?.status).toBe('cancelled');
    await expect.poll(async () => (await user.get(`/api/runs/${body.runId}`)).body.status).toBe('cancelled');
    const session = await user.get(`/api/sessions/${sessionId}`);
    const partial = session.body.messages.find((message: { role: string }) => message.role === 'assistant');
    const text = partial.parts.filter((part: { type: string }) => part.type === 'text').map((part: { text: string }) => part.text).join('');
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan('word '.repeat(200).length);
    // A repeated cancel (a client retry) answers the stored state instead of an error.
    const again = await user.post(`/api/runs/${body.runId}/cancel`);
    expect(again.status).toBe(202);
    expect(again.body.status).toBe('cancelled');
  });

  it('returns the same run for a retried Idempotency-Key and refuses a second active run with 409 naming it', async () => {
    const sessionId = await newSession();
    const key = `key-${Date.now()}`;
    const first = await send(sessionId, 'slow story', {}, user, { 'idempotency-key': key });
    const retry = await send(sessionId, 'slow story', {}, user, { 'idempotency-key': key });
    expect(retry.status).toBe(202);
    expect(retry.body.runId).toBe(first.body.runId);
    const second = await send(sessionId, 'hello again');
    expect(second.status).toBe(409);
    expect(second.body.error.message).toContain(first.body.runId);
    expect(second.body.error.details.activeRunId).toBe(first.body.runId);
    const session = await user.get(`/api/sessions/${sessionId}`);
    expect(session.body.messages.filter((message: { role: string }) => message.role === 'user')).toHaveLength(1);
    await user.post(`/api/runs/${first.body.runId}/cancel`);
  });

  it("answers 404 for another user's session, run and events, and 401 without a session", async () => {
    const sessionId = await newSession();
    const { body } = await send(sessionId, 'hello');
    await user.readEvents(body.runId);
    const credentials = { email: `other-${Date.now()}@test.local`, password: 'user-password-2' };
    await admin.post('/api/users', { ...credentials, name: 'Other' });
    const other = await ApiClient.login(stack.apiUrl, credentials);
    expect((await other.get(`/api/sessions/${sessionId}`)).status).toBe(404);
    expect((await other.get(`/api/runs/${body.runId}`)).status).toBe(404);
    expect((await other.readEvents(body.runId)).status).toBe(404);
    expect((await other.post(`/api/runs/${body.runId}/cancel`)).status).toBe(404);
    expect((await send(sessionId, 'hi', {}, other)).status).toBe(404);
    expect((await new ApiClient(stack.apiUrl).get(`/api/runs/${body.runId}`)).status).toBe(401);
    // An admin may read any run's events.
    expect((await admin.readEvents(body.runId)).status).toBe(200);
  });

  it('rejects bad input with 400 and changes nothing', async () => {
    const sessionId = await newSession();
    expect((await send(sessionId, '')).status).toBe(400);
    expect((await send(sessionId, 'x', { modelId: 'mdl_missing' })).status).toBe(400);
    expect((await user.post(`/api/sessions/${sessionId}/runs`, { content: 5 })).status).toBe(400);
    const session = await user.get(`/api/sessions/${sessionId}`);
    expect(session.body.messages).toHaveLength(0);
  });
});

describe('reconnecting', () => {
  it('resumes after Last-Event-ID with no gap and no duplicate, and replays a finished run', async () => {
    const { body } = await send(await newSession(), 'slow story');
    const part = await user.readEvents(body.runId, { maxEvents: 5 });
    expect(part.events).toHaveLength(5);
    const rest = await user.readEvents(body.runId, { lastEventId: part.events.at(-1)!.seq });
    const all = [...part.events, ...rest.events];
    expectGapFree(all);
    expect(all.at(-1)!.chunk.type).toBe('finish');

    const replay = await user.readEvents(body.runId);
    expect(replay.events.map((event) => event.seq)).toEqual(all.map((event) => event.seq));
    expect(replay.events.map((event) => event.chunk)).toEqual(all.map((event) => event.chunk));
  });
});
