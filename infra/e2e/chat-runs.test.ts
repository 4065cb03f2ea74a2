import { createServer, type Server } from 'node:http';
import type { RunEvent } from '@agentq/shared/events';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';
import { byLastUserMessage } from '../fake-llm/scripts';
import { ApiClient } from '../testing/api-client';
import { startProcessStack, type ProcessStack } from '../testing/process-stack';

let stack: ProcessStack;
let llm: FakeLlm;
let admin: ApiClient;
let user: ApiClient;
let page: Server;
let pageUrl = '';
let pageHits = 0;

/** What a client rebuilds from the stream, with the AI SDK's own reducer. */
async function rebuild(events: RunEvent[]): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const event of events) if (!(event.chunk as { transient?: boolean }).transient && event.chunk.type !== 'error') controller.enqueue(event.chunk as UIMessageChunk);
      controller.close();
    },
  });
  let message: UIMessage = { id: 'x', role: 'assistant', parts: [] };
  for await (const update of readUIMessageStream({ message, stream })) message = update;
  return message;
}

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
      { match: /^weather/i, reply: [{ toolCalls: [{ name: 'web', input: { url: '__PAGE__' } }] }, { text: 'It is sunny and 21 degrees.' }] },
      { match: /^broken tool/i, reply: [{ toolCalls: [{ name: 'web', input: { url: 'http://127.0.0.1:1/nothing' } }] }, { text: 'The page could not be fetched.' }] },
      { match: /^loop/i, reply: (request) => ({ ...(request.tools?.length ? { toolCalls: [{ name: 'calc', input: { expression: '1+1' } }] } : { text: 'Final answer without tools.' }) }) },
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
