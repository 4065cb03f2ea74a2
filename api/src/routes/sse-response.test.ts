import { Writable } from 'node:stream';
import { createLogger } from '@agentq/shared/logger';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../deps';
import { sseResponse, type SseStream } from './sse-response';

/** An app whose one route hands its SSE stream to `handler`; log lines are collected. */
function appWith(handler: (stream: SseStream) => Promise<void>) {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk, _encoding, done) => void (lines.push(String(chunk)), done()) });
  const logger = createLogger({ level: 'error', destination });
  const app = new Hono<AppEnv>()
    .use(async (c, next) => {
      c.set('logger', logger);
      await next();
    })
    .get('/events', (c) => sseResponse(c, handler));
  return { app, lines };
}

const decoder = new TextDecoder();
async function readAll(response: Response): Promise<string> {
  let text = '';
  for await (const chunk of response.body!) text += decoder.decode(chunk as Uint8Array);
  return text;
}

describe('sseResponse', () => {
  it('sends text and bytes in order as an event stream and ends when the handler returns', async () => {
    const { app } = appWith(async (stream) => {
      await stream.write('data: 1\n\n');
      await stream.write(new TextEncoder().encode('data: 2\n\n'));
    });
    const response = await app.request('/events');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(await readAll(response)).toBe('data: 1\n\ndata: 2\n\n');
  });

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

  it('logs a handler that throws and ends the stream', async () => {
    const { app, lines } = appWith(async (stream) => {
      await stream.write('data: before\n\n');
      throw new Error('the store went away');
    });
    const response = await app.request('/events');
    expect(await readAll(response)).toBe('data: before\n\n');
    expect(lines.join('')).toContain('the store went away');
  });
});
