import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestEvent } from '@sveltejs/kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiProxy, isApiPath } from './api-proxy.ts';

type Received = { method: string; url: string; headers: IncomingMessage['headers']; body: string };

let upstream: Server;
let apiUrl: string;
let received: Received[] = [];
const releaseSecondEvent = Promise.withResolvers<void>();

async function handleUpstream(request: IncomingMessage, response: ServerResponse) {
  if (request.url === '/api/too-large') {
    // Like the API's body limit: answer 413 from the first bytes, then drain what still arrives.
    request.once('data', () => {
      response.writeHead(413, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'payload_too_large' } }));
      request.resume();
    });
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });

  if (request.url === '/api/runs/run_1/events') {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.write('event: start\ndata: {"seq":1}\n\n');
    await releaseSecondEvent.promise;
    response.end('event: end\ndata: {"seq":2}\n\n');
    return;
  }
  if (request.url === '/api/empty') {
    response.writeHead(204).end();
    return;
  }
  response.setHeader('set-cookie', ['session=abc; Path=/; HttpOnly', 'theme=dark; Path=/']);
  response.setHeader('keep-alive', 'timeout=5');
  response.writeHead(201, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ ok: true }));
}

function requestEvent(path: string, init: RequestInit = {}): RequestEvent {
  const request = new Request(new URL(path, 'http://web.test'), { ...init, duplex: 'half' } as RequestInit);
  return {
    request,
    url: new URL(request.url),
    getClientAddress: () => '203.0.113.7',
  } as unknown as RequestEvent;
}

const resolve = vi.fn(async () => new Response('rendered by SvelteKit'));

beforeAll(async () => {
  upstream = createServer((request, response) => void handleUpstream(request, response));
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  apiUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  releaseSecondEvent.resolve();
  upstream.closeAllConnections();
  upstream.close();
});

describe('isApiPath', () => {
  it.each(['/api', '/api/auth/me', '/metrics', '/admin/queues', '/admin/queues/api/queues'])('matches %s', (path) => {
    expect(isApiPath(path)).toBe(true);
  });

  it.each(['/', '/apis', '/chat', '/admin', '/admin/tools', '/metricsx', '/admin/queuesx'])('leaves %s to SvelteKit', (path) => {
    expect(isApiPath(path)).toBe(false);
  });
});

describe('createApiProxy', () => {
  it('hands every request to SvelteKit when API_URL is unset', async () => {
    const handle = createApiProxy(undefined);
    const response = await handle({ event: requestEvent('/api/auth/me'), resolve });
    expect(await response.text()).toBe('rendered by SvelteKit');
  });

  it('leaves web pages to SvelteKit', async () => {
    const handle = createApiProxy(apiUrl);
    received = [];
    const response = await handle({ event: requestEvent('/admin/tools'), resolve });
    expect(await response.text()).toBe('rendered by SvelteKit');
    expect(received).toHaveLength(0);
  });

  it('forwards method, path, query, cookie and body, without hop-by-hop headers', async () => {
    const handle = createApiProxy(apiUrl);
    received = [];
    const response = await handle({
      event: requestEvent('/api/auth/login?remember=1', {
        method: 'POST',
        headers: {
          host: 'agentq.test',
          cookie: 'session=old',
          'content-type': 'application/json',
          connection: 'keep-alive, x-private',
          'x-private': 'secret',
          te: 'trailers',
        },
        body: JSON.stringify({ email: 'a@b.test', password: 'pw' }),
      }),
      resolve,
    });

    expect(received).toHaveLength(1);
    const [forwarded] = received;
    expect(forwarded).toMatchObject({ method: 'POST', url: '/api/auth/login?remember=1', body: '{"email":"a@b.test","password":"pw"}' });
    expect(forwarded?.headers).toMatchObject({
      cookie: 'session=old',
      'content-type': 'application/json',
      'x-forwarded-host': 'agentq.test',
      'x-forwarded-for': '203.0.113.7',
    });
    expect(forwarded?.headers['x-private']).toBeUndefined();
    expect(forwarded?.headers.te).toBeUndefined();

    expect(response.status).toBe(201);
    expect(response.headers.getSetCookie()).toEqual(['session=abc; Path=/; HttpOnly', 'theme=dark; Path=/']);
    expect(response.headers.get('keep-alive')).toBeNull();
    expect(await response.json()).toEqual({ ok: true });
  });

  it('streams SSE events as they arrive instead of buffering the body', async () => {
    const handle = createApiProxy(apiUrl);
    const response = await handle({ event: requestEvent('/api/runs/run_1/events'), resolve });
    expect(response.headers.get('content-type')).toBe('text/event-stream');

    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    // The upstream holds the second event back until the first has reached us.
    const first = await reader.read();
    expect(first.value).toContain('event: start');
    releaseSecondEvent.resolve();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += chunk.value;
    expect(rest).toContain('event: end');
  });

  it('passes a 204 through with no body', async () => {
    const handle = createApiProxy(apiUrl);
    const response = await handle({ event: requestEvent('/api/empty', { method: 'DELETE' }), resolve });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('passes an early 413 through while the body is still streaming (not 502)', async () => {
    const handle = createApiProxy(apiUrl);
    const chunk = new Uint8Array(64 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent++ >= 64) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, 2));
        controller.enqueue(chunk);
      },
    });
    const errorLog = vi.spyOn(console, 'error').mockImplementation(() => {});
    const response = await handle({ event: requestEvent('/api/too-large', { method: 'POST', body, headers: { 'content-type': 'application/json' } }), resolve });
    errorLog.mockRestore();
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: { code: 'payload_too_large' } });
    expect(sent).toBeLessThan(64);
  });

  it('answers 502 with the API error shape when the API is down', async () => {
    const down = createServer();
    down.listen(0, '127.0.0.1');
    await once(down, 'listening');
    const port = (down.address() as AddressInfo).port;
    down.close();
    await once(down, 'close');

    const errorLog = vi.spyOn(console, 'error').mockImplementation(() => {});
    const handle = createApiProxy(`http://127.0.0.1:${port}`);
    const response = await handle({ event: requestEvent('/api/auth/me'), resolve });
    const logged = errorLog.mock.calls.map((call) => [...call]);
    errorLog.mockRestore();

    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ error: { code: 'bad_gateway', message: expect.stringContaining('unreachable') } });
    // One line naming the failure, without a stack trace.
    expect(logged).toHaveLength(1);
    expect(logged[0]).toEqual([expect.stringMatching(/^API proxy: GET \/api\/auth\/me failed: .*ECONNREFUSED/)]);
  });
});
