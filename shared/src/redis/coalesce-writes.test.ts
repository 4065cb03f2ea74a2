import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { randomPrefix, testRedisUrl } from '../testing';
import { createApiRedis, createWorkerRedis, waitForRedis } from './index';

/** Counts the system-call-level writes of a connection's current socket: `_write` for one chunk, `_writev` for several. */
function countSocketWrites(redis: Redis) {
  const socket = (redis as unknown as { stream: Socket & { _write: Function; _writev: Function } }).stream;
  const counts = { writes: 0, chunks: 0 };
  const write = socket._write;
  const writev = socket._writev;
  socket._write = function (this: Socket, ...args: unknown[]) {
    counts.writes += 1;
    counts.chunks += 1;
    return write.apply(this, args);
  };
  socket._writev = function (this: Socket, chunks: unknown[], ...rest: unknown[]) {
    counts.writes += 1;
    counts.chunks += chunks.length;
    return writev.call(this, chunks, ...rest);
  };
  return counts;
}

describe('every connection sends the commands of one pass of the event loop in one socket write', () => {
  const opened: Redis[] = [];
  afterEach(() => {
    for (const redis of opened.splice(0)) redis.disconnect();
  });
  /** A ready connection, a key of this test's own, and its socket's write counts from now on. */
  const open = async (create: (url: string) => Redis, label: string) => {
    const redis = create(testRedisUrl());
    opened.push(redis);
    await waitForRedis(redis);
    return { redis, key: `${randomPrefix('coalesce')}:${label}`, counts: countSocketWrites(redis) };
  };

  it('writes ten commands sent in one turn once, in order, each with its own reply; the next turn writes again', async () => {
    const { redis, key, counts } = await open(createWorkerRedis, 'list');
    const replies = await Promise.all(Array.from({ length: 10 }, (_, index) => redis.rpush(key, String(index))));
    expect(counts).toEqual({ writes: 1, chunks: 10 });
    expect(replies).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await redis.lrange(key, 0, -1)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(counts.writes).toBe(2);
    await redis.del(key);
  });

  it('commands sent across awaits of one turn (a promise chain) still share the write', async () => {
    const { redis, key, counts } = await open(createApiRedis, 'chain');
    const first = redis.set(key, 'a');
    await Promise.resolve();
    const second = redis.append(key, 'b');
    await Promise.resolve();
    const third = redis.get(key);
    expect(await Promise.all([first, second, third])).toEqual(['OK', 2, 'ab']);
    expect(counts.writes).toBe(1);
    await redis.del(key);
  });

  it('commands sent from timers that fire together (runs flushing on one tick of the publisher grid) share the write', async () => {
    const { redis, key, counts } = await open(createWorkerRedis, 'timers');
    const sending = ['a', 'b', 'c'].map(
      (value) => new Promise<number>((resolve, reject) => setTimeout(() => redis.rpush(key, value).then(resolve, reject), 5)),
    );
    // Node stamps each timer with a fresh clock reading, so on a busy machine the three could be
    // created a millisecond apart and come due in separate passes; holding the loop past their due
    // time makes them fire in one pass, as the flush timers of runs on one grid tick do.
    const due = performance.now() + 20;
    while (performance.now() < due);
    const sent = await Promise.all(sending);
    expect(sent.sort()).toEqual([1, 2, 3]);
    expect(counts).toEqual({ writes: 1, chunks: 3 });
    await redis.del(key);
  });

  it("a reconnect's new socket coalesces too, and an error reply stays the one command's", async () => {
    const { redis, key } = await open(createWorkerRedis, 'reconnect');
    redis.disconnect(true);
    await new Promise<void>((resolve) => redis.once('ready', resolve));
    const counts = countSocketWrites(redis);
    const [set, wrongType, get] = await Promise.allSettled([redis.set(key, 'v'), redis.lpush(key, 'x'), redis.get(key)]);
    expect(counts.writes).toBe(1);
    expect(set).toEqual({ status: 'fulfilled', value: 'OK' });
    expect(wrongType.status === 'rejected' && String(wrongType.reason)).toMatch(/WRONGTYPE/);
    expect(get).toEqual({ status: 'fulfilled', value: 'v' });
    await redis.del(key);
  });
});
