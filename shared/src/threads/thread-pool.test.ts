import { afterAll, describe, expect, it } from 'vitest';
import { ThreadPool, type ThreadFailure } from './thread-pool';
import type { TestTask } from './test-thread';

const pool = new ThreadPool<TestTask, string | ThreadFailure>({
  url: new URL('./test-thread.ts', import.meta.url),
  threads: 1,
  timeoutMs: 500,
  onFailure: (_, failure) => failure,
});
afterAll(() => pool.close());

describe('ThreadPool', () => {
  it("answers each task from its thread, or with onFailure's answer when the thread throws, runs out of time or dies, and goes on with a new thread", async () => {
    expect(await pool.run({ echo: 'hello' })).toBe('hello from a thread');
    expect(await pool.run({ throw: 'bad input' })).toEqual({ reason: 'error', message: 'bad input' });
    const started = performance.now();
    expect(await pool.run({ spin: true })).toEqual({ reason: 'timeout' });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await pool.run({ echo: 'again' })).toBe('again from a thread');
    expect(await pool.run({ exit: true })).toEqual({ reason: 'exit' });
    // Queued behind one another on the one thread, in order.
    expect(await Promise.all(['a', 'b', 'c'].map((echo) => pool.run({ echo })))).toEqual(['a from a thread', 'b from a thread', 'c from a thread']);
  });
});
