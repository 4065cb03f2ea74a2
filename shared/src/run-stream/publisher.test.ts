import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiRedis, createWorkerRedis, waitForRedis } from '../redis';
import { startPrivateRedis, type PrivateRedis } from '../testing';
import { appendRunEvents, defineRunStreamCommands, RunEventPublisher } from './publisher';
import { runStreamKeys } from './keys';
import type { RunEvent } from '../events';
import { readRunEvents, readStoredStream } from './reader';

let server: PrivateRedis;
let redis: Redis;
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);

beforeAll(async () => {
  server = await startPrivateRedis({ appendonly: true });
  redis = createWorkerRedis(server.url);
  redis.on('error', () => {});
  process.on('unhandledRejection', onRejection);
});
afterAll(async () => {
  process.off('unhandledRejection', onRejection);
  redis?.disconnect();
  await server?.dispose();
});

describe('RunEventPublisher across a Redis restart', () => {
  it('keeps every event, in order, when Redis restarts (LOADING included) while timer flushes are due, with no unhandled rejection', async () => {
    const publisher = new RunEventPublisher(redis, 'pub', 'run-restart', 0);
    publisher.emit({ type: 'start', messageId: 'run-restart' });
    publisher.emit({ type: 'text-start', id: 't' });
    await publisher.flush();
    await server.stop('SIGTERM');
    // Emitted while Redis is gone: the timer-driven flush fails and retries instead of rejecting into the void.
    for (const delta of ['a', 'b', 'c']) {
      publisher.emit({ type: 'text-delta', id: 't', delta });
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    publisher.emit({ type: 'text-end', id: 't' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.start();
    publisher.emit({ type: 'finish' });
    await publisher.close();

    const events = await readRunEvents(redis, 'pub', 'run-restart', 0);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.map((event) => event.chunk.type)).toEqual(['start', 'text-start', 'text-delta', 'text-delta', 'text-delta', 'text-end', 'finish']);
    expect(events.filter((event) => event.chunk.type === 'text-delta').map((event) => (event.chunk as { delta: string }).delta).join('')).toBe('abc');
    expect(rejections).toEqual([]);
  });

  it('on a fail-fast connection, gives up after its retry window and reports the error on the next awaited flush', async () => {
    // Worker connections queue commands while disconnected; a fail-fast one makes every attempt fail at once.
    const failFast = createApiRedis(server.url);
    failFast.on('error', () => {});
    await waitForRedis(failFast);
    const publisher = new RunEventPublisher(failFast, 'pub', 'run-down', 0, undefined, 300);
    await server.stop('SIGTERM');
    try {
      publisher.emit({ type: 'start', messageId: 'run-down' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expect(publisher.flush()).rejects.toThrow();
      expect(rejections).toEqual([]);
    } finally {
      failFast.disconnect();
      await server.start();
    }
  });
});

describe('RunEventPublisher batching', () => {
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it("publishes a part's first token on the next turn of the event loop and coalesces the tokens after it", async () => {
    const published: { seq: number; type: string; delta?: string }[] = [];
    const publisher = new RunEventPublisher(redis, 'pub', 'run-batching', 0, (event) =>
      published.push({ seq: event.seq, type: event.chunk.type, delta: (event.chunk as { delta?: string }).delta }),
    );
    publisher.emit({ type: 'text-start', id: 't' });
    publisher.emit({ type: 'text-delta', id: 't', delta: 'Hel' });
    await nextTurn();
    // Out without waiting for the coalescing window: the start and the first token, as one batch.
    expect(published).toEqual([
      { seq: 1, type: 'text-start', delta: undefined },
      { seq: 2, type: 'text-delta', delta: 'Hel' },
    ]);
    publisher.emit({ type: 'text-delta', id: 't', delta: 'lo' });
    publisher.emit({ type: 'text-delta', id: 't', delta: ' world' });
    await nextTurn();
    expect(published).toHaveLength(2); // later tokens wait to be merged
    // A new part's first delta (reasoning here) does not wait for the text part's window either.
    publisher.emit({ type: 'reasoning-delta', id: 'r', delta: 'hmm' });
    await nextTurn();
    expect(published.slice(2)).toEqual([
      { seq: 3, type: 'text-delta', delta: 'lo world' },
      { seq: 4, type: 'reasoning-delta', delta: 'hmm' },
    ]);
    await publisher.close();
    const stored = await readRunEvents(redis, 'pub', 'run-batching', 0);
    expect(stored.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
  });

  it("coalesces a tool call's streamed input, its first piece too; the complete call goes out at once with the pieces still waiting", async () => {
    const published: { seq: number; type: string; piece?: string }[] = [];
    const publisher = new RunEventPublisher(redis, 'pub', 'run-tool-input', 0, (event) =>
      published.push({ seq: event.seq, type: event.chunk.type, piece: (event.chunk as { inputTextDelta?: string }).inputTextDelta }),
    );
    publisher.emit({ type: 'tool-input-start', toolCallId: 'call_1', toolName: 'calc' });
    await nextTurn();
    // The call is shown at once; its input, arriving after, waits for more.
    expect(published.map((event) => event.type)).toEqual(['tool-input-start']);
    for (const piece of ['{"expre', 'ssion', '": "6 ', '* 7"}']) {
      publisher.emit({ type: 'tool-input-delta', toolCallId: 'call_1', inputTextDelta: piece });
      await nextTurn();
    }
    expect(published).toHaveLength(1);
    // Another call's pieces are a part of their own: nothing merges across calls.
    publisher.emit({ type: 'tool-input-delta', toolCallId: 'call_2', inputTextDelta: '{}' });
    publisher.emit({ type: 'tool-input-available', toolCallId: 'call_1', toolName: 'calc', input: { expression: '6 * 7' } });
    await nextTurn();
    expect(published.slice(1)).toEqual([
      { seq: 2, type: 'tool-input-delta', piece: '{"expression": "6 * 7"}' },
      { seq: 3, type: 'tool-input-delta', piece: '{}' },
      { seq: 4, type: 'tool-input-available', piece: undefined },
    ]);
    await publisher.close();
    expect((await readRunEvents(redis, 'pub', 'run-tool-input', 0)).map((event) => event.seq)).toEqual([1, 2, 3, 4]);
  });

  it('adds a batch to the stream and announces it as one array; a retry after a partial write adds only the rest', async () => {
    const keys = runStreamKeys('pub', 'run-append');
    const subscriber = createWorkerRedis(server.url);
    const announced: number[][] = [];
    subscriber.on('message', (_channel: string, message: string) => announced.push((JSON.parse(message) as RunEvent[]).map((event) => event.seq)));
    await subscriber.subscribe(keys.channel);
    const event = (seq: number): RunEvent => ({ runId: 'run-append', seq, at: 1_700_000_000_000 + seq, chunk: { type: 'text-delta', id: 't', delta: `token ${seq} "quoted"` } });
    await appendRunEvents(redis, keys, [event(1), event(2)]);
    // As if the connection dropped after events 3 and 4 reached the stream: the retry names them as already added.
    await appendRunEvents(redis, keys, [event(3), event(4)]);
    await appendRunEvents(redis, keys, [event(3), event(4), event(5)], 2);
    await expect.poll(() => announced).toEqual([[1, 2], [3, 4], [3, 4, 5]]);
    expect(await readRunEvents(redis, 'pub', 'run-append', 0)).toEqual([1, 2, 3, 4, 5].map(event));
    subscriber.disconnect();
  });

  it("sets the stream's expiry with the run's last batch, in the same script; a close with nothing left to write sends an EXPIRE of its own", async () => {
    const expire = vi.spyOn(redis, 'expire');
    try {
      const ending = new RunEventPublisher(redis, 'pub', 'run-expiry', 0);
      ending.emit({ type: 'start', messageId: 'run-expiry' });
      await ending.flush();
      const { events } = runStreamKeys('pub', 'run-expiry');
      expect(await redis.ttl(events)).toBe(-1);
      ending.emit({ type: 'finish' });
      await ending.close(600);
      expect(await redis.ttl(events)).toBeGreaterThan(590);
      expect((await readRunEvents(redis, 'pub', 'run-expiry', 0)).map((event) => event.chunk.type)).toEqual(['start', 'finish']);
      expect(expire).not.toHaveBeenCalled();

      const flushed = new RunEventPublisher(redis, 'pub', 'run-expiry-flushed', 0);
      flushed.emit({ type: 'finish' });
      await flushed.flush();
      await flushed.close(600);
      expect(expire).toHaveBeenCalledTimes(1);
      expect(await redis.ttl(runStreamKeys('pub', 'run-expiry-flushed').events)).toBeGreaterThan(590);
    } finally {
      expire.mockRestore();
    }
  });

  it('on an auto-pipelined connection, appends joining a pipeline another command opened all land; without the script defined up front they are refused, not a process crash (redis/ioredis#1931)', async () => {
    const event = (runId: string, seq: number): RunEvent => ({ runId, seq, at: 1_700_000_000_000 + seq, chunk: { type: 'text-delta', id: 't', delta: `token ${seq}` } });
    const keysA = runStreamKeys('pub', 'run-auto-a');
    const keysB = runStreamKeys('pub', 'run-auto-b');
    const piped = createWorkerRedis(server.url, { enableAutoPipelining: true });
    piped.on('error', () => {});
    defineRunStreamCommands(piped);
    // One turn, as a fresh worker's first runs do: a stream read opens the auto-pipeline, two runs' first flushes join it.
    const [top] = await Promise.all([
      piped.xrevrange(keysA.events, '+', '-', 'COUNT', 1),
      appendRunEvents(piped, keysA, [event('run-auto-a', 1)]),
      appendRunEvents(piped, keysB, [event('run-auto-b', 1), event('run-auto-b', 2)]),
    ]);
    expect(top).toEqual([]);
    expect((await readRunEvents(redis, 'pub', 'run-auto-a', 0)).map((stored) => stored.seq)).toEqual([1]);
    expect((await readRunEvents(redis, 'pub', 'run-auto-b', 0)).map((stored) => stored.seq)).toEqual([1, 2]);

    const bare = createWorkerRedis(server.url, { enableAutoPipelining: true });
    bare.on('error', () => {});
    const read = bare.xrevrange(keysA.events, '+', '-', 'COUNT', 1);
    await expect(appendRunEvents(bare, keysA, [event('run-auto-a', 2)])).rejects.toThrow(/defineRunStreamCommands/);
    expect(await read).toHaveLength(1);
    expect((await readRunEvents(redis, 'pub', 'run-auto-a', 0)).map((stored) => stored.seq)).toEqual([1]);
    piped.disconnect();
    bare.disconnect();
  });

  it("flushes different runs' coalesced tokens together, on a 50 ms grid shared by the process, 5 to 55 ms after them", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
    const flushedAt: Record<string, number[]> = { a: [], b: [] };
    const publisher = (name: 'a' | 'b') =>
      new RunEventPublisher(redis, 'pub', `run-grid-${name}`, 0, (event) => {
        if (event.chunk.type === 'text-delta' && event.seq > 2) flushedAt[name]!.push(performance.now());
      });
    const a = publisher('a');
    const b = publisher('b');
    try {
      const start = Math.ceil(performance.now() / 50) * 50 + 1; // 1 ms after a grid point
      vi.advanceTimersByTime(start - performance.now());
      for (const each of [a, b]) {
        each.emit({ type: 'text-start', id: 't' });
        each.emit({ type: 'text-delta', id: 't', delta: 'first' });
      }
      vi.advanceTimersByTime(1); // the first tokens go out at once
      a.emit({ type: 'text-delta', id: 't', delta: ' second' }); // at start + 1: due at the next tick, start + 49
      vi.advanceTimersByTime(10);
      b.emit({ type: 'text-delta', id: 't', delta: ' second' }); // at start + 11: the same tick, 38 ms away
      vi.advanceTimersByTime(37);
      expect(flushedAt).toEqual({ a: [], b: [] }); // 47 ms after a's token: still waiting for more
      vi.advanceTimersByTime(1);
      expect(flushedAt).toEqual({ a: [start + 49], b: [start + 49] });
      vi.advanceTimersByTime(47);
      a.emit({ type: 'text-delta', id: 't', delta: ' third' }); // at start + 96: the tick 3 ms away is too soon
      vi.advanceTimersByTime(52);
      expect(flushedAt.a).toEqual([start + 49]);
      vi.advanceTimersByTime(1);
      expect(flushedAt.a).toEqual([start + 49, start + 149]); // 53 ms after its token
    } finally {
      vi.useRealTimers();
    }
    await Promise.all([a.close(), b.close()]);
    expect((await readRunEvents(redis, 'pub', 'run-grid-b', 0)).map((event) => (event.chunk as { delta?: string }).delta)).toEqual([undefined, 'first', ' second']);
    expect((await readRunEvents(redis, 'pub', 'run-grid-a', 0)).map((event) => (event.chunk as { delta?: string }).delta)).toEqual([undefined, 'first', ' second', ' third']);
  });
});

describe('readStoredStream', () => {
  it('reads the events after a position, the first seq held and the last event in one go, paging past its limit', async () => {
    const keys = runStreamKeys('pub', 'run-stored');
    const event = (seq: number): RunEvent => ({ runId: 'run-stored', seq, at: 1_700_000_000_000 + seq, chunk: seq === 7 ? { type: 'finish' } : { type: 'text-delta', id: 't', delta: `${seq}` } });
    await appendRunEvents(redis, keys, [3, 4, 5, 6, 7].map(event)); // as if trimmed: 1 and 2 are gone
    const stored = await readStoredStream(redis, 'pub', 'run-stored', 3, 2);
    expect(stored.events.map((each) => each.seq)).toEqual([4, 5, 6, 7]);
    expect(stored.firstSeq).toBe(3);
    expect(stored.last).toEqual(event(7));
    expect(await readStoredStream(redis, 'pub', 'run-stored', 7)).toEqual({ events: [], firstSeq: 3, last: event(7) });
    expect(await readStoredStream(redis, 'pub', 'run-never-published', 0)).toEqual({ events: [], firstSeq: 0, last: undefined });
  });
});
