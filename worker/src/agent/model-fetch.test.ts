import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, streamText } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../../infra/fake-llm/server';
import { afterModelRequestWrite, modelFetch } from './model-fetch';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  closers.push(async () => void server.closeAllConnections());
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function fakeLlm(options: Parameters<typeof startFakeLlm>[0]): Promise<FakeLlm> {
  const llm = await startFakeLlm(options);
  closers.push(() => llm.close());
  return llm;
}

const modelAt = (baseURL: string) => createOpenAICompatible({ name: 'agentq', baseURL, apiKey: 'sk-test', includeUsage: true, fetch: modelFetch }).chatModel('m');

describe('modelFetch', () => {
  it('streams a model answer through the AI SDK: the request as sent, every chunk, the usage', async () => {
    const llm = await fakeLlm({ script: [{ text: 'one two three four five' }], latency: { interTokenMs: 5 } });
    const result = streamText({ model: modelAt(llm.url), system: 'Be brief.', prompt: 'Count to five' });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.join('')).toBe('one two three four five');
    expect(deltas.length).toBeGreaterThan(1);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Count to five' },
    ]);
  });

  it('sends the method, headers and body, and answers status and headers, repeated ones included', async () => {
    let seen: { method?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    const url = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen = { method: request.method, headers: request.headers, body };
        response.writeHead(201, { 'x-one': 'a', 'set-cookie': ['a=1', 'b=2'], 'content-type': 'application/json' });
        response.end('{"ok":true}');
      });
    });
    const response = await modelFetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' }, body: '{"q":1}' });
    expect(seen.method).toBe('POST');
    expect(seen.headers?.authorization).toBe('Bearer sk-test');
    expect(seen.body).toBe('{"q":1}');
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-one')).toBe('a');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ ok: true });
    // Headers given as a Headers object arrive too.
    await modelFetch(url, { method: 'POST', headers: new Headers({ 'x-two': 'b' }), body: '' }).then((answer) => answer.text());
    expect(seen.headers?.['x-two']).toBe('b');
  });

  it('follows a redirect as fetch does, and answers a null-body status without a body', async () => {
    const url = await serve((request, response) => {
      if (request.url === '/old') {
        response.writeHead(307, { location: '/new' }).end();
      } else if (request.url === '/new') {
        request.resume();
        response.writeHead(200).end('moved here');
      } else response.writeHead(204).end();
    });
    const moved = await modelFetch(`${url}/old`, { method: 'POST', body: 'x' });
    expect([moved.status, await moved.text()]).toEqual([200, 'moved here']);
    const empty = await modelFetch(`${url}/empty`);
    expect([empty.status, empty.body]).toEqual([204, null]);
  });

  it('an abort stops a stream mid-answer, and one before the answer rejects as an abort', async () => {
    let closedByClient = false;
    const url = await serve((request, response) => {
      response.on('close', () => (closedByClient = !response.writableFinished));
      if (request.url === '/slow') return; // never answers
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => response.write('data: tick\n\n'), 5);
      response.on('close', () => clearInterval(timer));
    });
    const controller = new AbortController();
    const response = await modelFetch(`${url}/stream`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    await expect.poll(() => closedByClient).toBe(true);

    const early = new AbortController();
    const pending = modelFetch(`${url}/slow`, { signal: early.signal });
    early.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a refused connection is a retryable API call error for the AI SDK, as with fetch', async () => {
    const url = await serve(() => {});
    closers.splice(0).reverse().forEach((close) => void close());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const result = streamText({ model: modelAt(`${url}/v1`), prompt: 'hi', maxRetries: 0, onError: () => {} });
    const errors: unknown[] = [];
    for await (const part of result.fullStream) if (part.type === 'error') errors.push(part.error);
    expect(errors).toHaveLength(1);
    expect(APICallError.isInstance(errors[0])).toBe(true);
    expect((errors[0] as APICallError).isRetryable).toBe(true);
    expect((errors[0] as APICallError).message).toMatch(/Cannot connect to API/);
  });

  it('writes a request on a reused socket from an immediate: afterModelRequestWrite resolves after that write, a single setImmediate before it', async () => {
    const url = await serve((_request, response) => response.end('ok'));
    // The first request opens the socket; the next ones reuse it once it is idle.
    await (await modelFetch(`${url}/first`)).text();
    const order: string[] = [];
    const onHeaders = () => order.push('request written');
    subscribe('undici:client:sendHeaders', onHeaders);
    try {
      for (let round = 0; round < 3; round++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.length = 0;
        // Queued before the request, as BullMQ's next marker wait is queued before a job's start reaches its model call.
        const single = new Promise<void>((resolve) => setImmediate(resolve)).then(() => order.push('one setImmediate'));
        const after = afterModelRequestWrite().then(() => order.push('afterModelRequestWrite'));
        for (let hop = 0; hop < 20; hop++) await Promise.resolve();
        const response = modelFetch(`${url}/again`);
        await Promise.all([single, after]);
        await (await response).text();
        expect(order).toEqual(['one setImmediate', 'request written', 'afterModelRequestWrite']);
      }
    } finally {
      unsubscribe('undici:client:sendHeaders', onHeaders);
    }
  });
});
