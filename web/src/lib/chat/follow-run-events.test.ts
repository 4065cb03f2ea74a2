import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { followRunEvents, RunEventsError } from './follow-run-events.ts';
import type { RunEvent } from './follow-run-events.ts';

type Handler = (request: IncomingMessage, response: ServerResponse, attempt: number) => void;

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A loopback SSE server whose n-th connection is answered by `handler`. */
async function serve(handler: Handler): Promise<{ url: string; lastEventIds: (string | undefined)[] }> {
  const lastEventIds: (string | undefined)[] = [];
  server = createServer((request, response) => {
    lastEventIds.push(request.headers['last-event-id'] as string | undefined);
    handler(request, response, lastEventIds.length);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/runs/r1/events`, lastEventIds };
}

function event(seq: number, delta: string): string {
  return `id: ${seq}\ndata: ${JSON.stringify({ type: 'text-delta', id: 't', delta })}\n\n`;
}

async function collect(url: string, options: Parameters<typeof followRunEvents>[1] = {}): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const item of followRunEvents(url, { retryDelaysMs: [5], ...options })) events.push(item);
  return events;
}

describe('followRunEvents', () => {
  it('reconnects with Last-Event-ID after a dropped connection and never yields an event twice', async () => {
    const { url, lastEventIds } = await serve((_request, response, attempt) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (attempt === 1) {
        response.write(event(1, 'a') + event(2, 'b') + 'id: 3\ndata: {"type":"text-de');
        // Cut mid-event: the half-sent event 3 must come again, whole, after the reconnect.
        setTimeout(() => response.destroy(), 20);
      } else {
        // The server may repeat what the client already has; the client skips it.
        response.end(event(2, 'b') + event(3, 'c') + `id: 4\ndata: {"type":"finish"}\n\n` + 'data: [DONE]\n\n');
      }
    });
    const states: string[] = [];
    const events = await collect(url, { onConnection: (state) => states.push(state) });
    expect(events.map((item) => item.seq)).toEqual([1, 2, 3, 4]);
    expect(events.map((item) => (item.chunk as { delta?: string }).delta ?? item.chunk.type).join('')).toBe('abcfinish');
    expect(lastEventIds).toEqual([undefined, '2']);
    expect(states).toEqual(['open', 'reconnecting', 'open']);
  });

  it('resumes after a given sequence number, and stops at finish when [DONE] was lost', async () => {
    const { url, lastEventIds } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(event(6, 'x') + `id: 7\ndata: {"type":"finish"}\n\n`);
      setTimeout(() => response.destroy(), 20);
    });
    const events = await collect(url, { afterSeq: 5 });
    expect(events.map((item) => item.seq)).toEqual([6, 7]);
    expect(lastEventIds).toEqual(['5']);
  });

  it('retries server errors', async () => {
    const retried = await serve((_request, response, attempt) => {
      if (attempt < 3) {
        response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"busy"}}');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' }).end(event(1, 'ok') + 'data: [DONE]\n\n');
    });
    expect((await collect(retried.url)).map((item) => item.seq)).toEqual([1]);
    expect(retried.lastEventIds).toHaveLength(3);
  });

  it('gives up at once on a permanent error', async () => {
    const forbidden = await serve((_request, response) => {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"Run r1 not found"}}');
    });
    await expect(collect(forbidden.url)).rejects.toEqual(new RunEventsError(404, 'Run r1 not found'));
    expect(forbidden.lastEventIds).toHaveLength(1);
  });

  it('gives up after maxAttempts failed connections in a row', async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(502).end();
    });
    await expect(collect(url, { maxAttempts: 3 })).rejects.toThrow(/Lost the connection to this run \(HTTP 502/);
  });

  it('ends when the signal aborts', async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(event(1, 'a'));
    });
    const controller = new AbortController();
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of followRunEvents(url, { signal: controller.signal })) {
          seen.push(item.seq);
          controller.abort();
        }
      })(),
    ).rejects.toThrow();
    expect(seen).toEqual([1]);
  });
});
