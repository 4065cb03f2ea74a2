import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { serve } from '@hono/node-server';
import { createLogger } from '@agentq/shared/logger';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppEnv } from '../deps';
import { sseResponse, type SseStream } from './sse-response';

/**
 * An app whose one route hands its SSE stream to `handler`; log lines are collected. A middleware
 * adds a header on the way out, as the security headers do, after the handler has returned.
 */
function appWith(handler: (stream: SseStream) => Promise<void>) {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk, _encoding, done) => void (lines.push(String(chunk)), done()) });
  const logger = createLogger({ level: 'error', destination });
  const app = new Hono<AppEnv>()
    .use(async (c, next) => {
      c.set('logger', logger);
      await next();
      c.header('x-added-on-the-way-out', 'yes');
    })
    .get('/events', (c) => sseResponse(c, handler));
  return { app, lines };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** The app behind a real @hono/node-server listener on loopback, as the API runs it. */
async function listen(app: Hono<AppEnv>): Promise<string> {
  // An HTTP/1 server: serve() without createServer options makes one.
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  servers.push(server);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
}

function get(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => httpRequest(url, resolve).on('error', reject).end());
}

async function readText(response: IncomingMessage): Promise<string> {
  response.setEncoding('utf8');
  let text = '';
  for await (const chunk of response) text += chunk;
  return text;
}

const decoder = new TextDecoder();
async function readAll(response: Response): Promise<string> {
  let text = '';
  for await (const chunk of response.body!) text += decoder.decode(chunk as Uint8Array);
  return text;
}

/** The same route served two ways: `app.request` (the web-stream body) and a Node server (frames written to the socket). */
const transports = [
  {
    name: 'app.request',
    fetchEvents: async (app: Hono<AppEnv>) => {
      const response = await app.request('/events');
      return { status: response.status, header: (name: string) => response.headers.get(name), text: () => readAll(response) };
    },
  },
  {
    name: 'a Node server',
    fetchEvents: async (app: Hono<AppEnv>) => {
      const response = await get(await listen(app));
      return { status: response.statusCode, header: (name: string) => (response.headers[name] as string | undefined) ?? null, text: () => readText(response) };
    },
  },
];

describe.each(transports)('sseResponse through $name', ({ fetchEvents }) => {
  it('sends text and bytes in order as an event stream, with the headers added on the way out, and ends when the handler returns', async () => {
    const { app } = appWith(async (stream) => {
      await stream.write('data: 1\n\n');
      await stream.write(new TextEncoder().encode('data: 2\n\n'));
      // Later frames, once the head is out (on a Node server: written to the socket directly).
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (let index = 3; index <= 50; index++) await stream.write(index % 2 ? `data: ${index}\n\n` : new TextEncoder().encode(`data: ${index}\n\n`));
    });
    const response = await fetchEvents(app);
    expect(response.status).toBe(200);
    expect(response.header('content-type')).toBe('text/event-stream');
    expect(response.header('cache-control')).toBe('no-cache, no-transform');
    expect(response.header('x-added-on-the-way-out')).toBe('yes');
    expect(await response.text()).toBe(Array.from({ length: 50 }, (_, index) => `data: ${index + 1}\n\n`).join(''));
  });

  it('logs a handler that throws and ends the stream', async () => {
    const { app, lines } = appWith(async (stream) => {
      await stream.write('data: before\n\n');
      await new Promise((resolve) => setTimeout(resolve, 20));
      await stream.write('data: after the head\n\n');
      throw new Error('the store went away');
    });
    const response = await fetchEvents(app);
    expect(await response.text()).toBe('data: before\n\ndata: after the head\n\n');
    expect(lines.join('')).toContain('the store went away');
  });
});

describe('sseResponse through app.request', () => {
  it('makes a writer wait while the client is not reading, and go on once it reads', async () => {
    let written = 0;
    let finished = false;
    const { app } = appWith(async (stream) => {
      for (let index = 0; index < 100; index++) {
        await stream.write(`data: ${index}\n\n`);
        written++;
      }
      finished = true;
    });
    const response = await app.request('/events');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Bounded by the queue's high-water mark, not by the number of events.
    expect(written).toBeLessThan(20);
    expect(finished).toBe(false);
    const text = await readAll(response);
    expect(finished).toBe(true);
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(100);
  });

  it('tells the handler when the client goes away, and drops later writes', async () => {
    let stream!: SseStream;
    let aborts = 0;
    const ready = new Promise<void>((resolve) => {
      const { app } = appWith(async (opened) => {
        stream = opened;
        opened.onAbort(() => aborts++);
        await opened.write('data: first\n\n');
        resolve();
        await new Promise((wait) => setTimeout(wait, 100));
        await opened.write('data: after\n\n');
      });
      void Promise.resolve(app.request('/events')).then(async (response) => {
        const reader = response.body!.getReader();
        await reader.read();
        await reader.cancel();
      });
    });
    await ready;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stream.aborted).toBe(true);
    expect(aborts).toBe(1);
    await expect(stream.write('data: late\n\n')).resolves.toBeUndefined();
  });
});

describe('sseResponse through a Node server', () => {
  it('writes each frame after the head to the Node response in the write call, not through the body stream', async () => {
    let outgoing!: ServerResponse;
    let writesInTheCall: number[] = [];
    const app = new Hono<AppEnv>().get('/events', (c) => {
      outgoing = (c.env as { outgoing: ServerResponse }).outgoing;
      return sseResponse(c, async (stream) => {
        await stream.write('data: before the head\n\n');
        await new Promise((resolve) => setTimeout(resolve, 20));
        let calls = 0;
        const write = outgoing.write.bind(outgoing) as (...args: unknown[]) => boolean;
        outgoing.write = ((...args: unknown[]) => (calls++, write(...args))) as typeof outgoing.write;
        writesInTheCall = [];
        for (let index = 0; index < 3; index++) {
          const before = calls;
          const written = stream.write(`data: ${index}\n\n`);
          writesInTheCall.push(calls - before);
          await written;
        }
      });
    });
    const response = await get(await listen(app));
    expect(await readText(response)).toBe('data: before the head\n\ndata: 0\n\ndata: 1\n\ndata: 2\n\n');
    // Through the body stream, node-server would write each frame a microtask later (0 here).
    expect(writesInTheCall).toEqual([1, 1, 1]);
  });

  it('makes a writer wait while the client is not reading, and go on once it reads', async () => {
    const frame = `data: ${'x'.repeat(64 * 1024)}\n\n`;
    const frames = 1_000;
    let written = 0;
    let finished = false;
    const { app } = appWith(async (stream) => {
      for (let index = 0; index < frames; index++) {
        await stream.write(frame);
        written++;
      }
      finished = true;
    });
    const response = await get(await listen(app));
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // 64 MB would be written by now if nothing waited; the kernel's and Node's buffers hold a few MB.
    expect(written).toBeLessThan(frames / 2);
    expect(finished).toBe(false);
    const text = await readText(response);
    expect(finished).toBe(true);
    expect(text.length).toBe(frame.length * frames);
  });

  it('tells the handler when the client goes away, wakes a writer waiting for it, and drops later writes', async () => {
    let stream!: SseStream;
    let aborts = 0;
    let blockedWriteReturned = false;
    const opened = new Promise<void>((resolve) => {
      const { app } = appWith(async (handed) => {
        stream = handed;
        handed.onAbort(() => aborts++);
        await handed.write('data: first\n\n');
        resolve();
        // The client reads nothing more: these fill the buffers until a write waits.
        while (!handed.aborted) await handed.write(`data: ${'y'.repeat(64 * 1024)}\n\n`);
        blockedWriteReturned = true;
      });
      void listen(app).then(async (url) => {
        const response = await get(url);
        response.once('data', () => response.pause());
      });
    });
    await opened;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(blockedWriteReturned).toBe(false);
    // The client goes away.
    for (const server of servers) server.closeAllConnections();
    await expect.poll(() => stream.aborted).toBe(true);
    await expect.poll(() => blockedWriteReturned).toBe(true);
    expect(aborts).toBe(1);
    await expect(stream.write('data: late\n\n')).resolves.toBeUndefined();
  });
});
