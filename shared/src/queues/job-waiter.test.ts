import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomPrefix, testRedisUrl } from '../testing';
import { createJobWaiter, defineJobOutcomeCommands, JobWaitTimeoutError, publishJobOutcome, type JobWaiter } from './job-waiter';
import { createQueues, type Queues } from './queues';

describe('job waiter (results over pub/sub)', () => {
  let redis: Redis;
  let queues: Queues;
  let waiter: JobWaiter;
  let otherWaiter: JobWaiter;
  const prefix = randomPrefix('waiter');

  beforeAll(() => {
    redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    queues = createQueues(redis, prefix);
    waiter = createJobWaiter(testRedisUrl(), queues);
    otherWaiter = createJobWaiter(testRedisUrl(), queues);
  });

  afterAll(async () => {
    await waiter.close();
    await otherWaiter.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await queues.close();
    redis.disconnect();
  });

  it('delivers an outcome published while the request waits, to the waiter that asked', async () => {
    const waiting = waiter.wait('toolExecutions', 'job-live', 5_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await publishJobOutcome(redis, prefix, 'tool-executions', 'job-live', { ok: true, value: { success: true, data: 42 } });
    await expect(waiting).resolves.toEqual({ success: true, data: 42 });
    // Pushed, not polled (the re-check runs once a second).
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("on an auto-pipelined connection (the worker's), outcomes published in the same turn all arrive; without the script defined up front they are refused", async () => {
    const piped = new Redis(testRedisUrl(), { maxRetriesPerRequest: null, enableAutoPipelining: true });
    try {
      const bare = new Redis(testRedisUrl(), { maxRetriesPerRequest: null, enableAutoPipelining: true });
      await expect(publishJobOutcome(bare, prefix, 'tool-executions', 'job-bare', { ok: true, value: 0 })).rejects.toThrow(/defineJobOutcomeCommands/);
      bare.disconnect();
      defineJobOutcomeCommands(piped);
      const ids = ['job-piped-1', 'job-piped-2', 'job-piped-3'];
      const waits = ids.map((id) => waiter.wait('toolExecutions', id, 5_000));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await Promise.all(ids.map((id, index) => publishJobOutcome(piped, prefix, 'tool-executions', id, index === 2 ? { ok: false, error: 'Run run_y failed' } : { ok: true, value: { index } })));
      await expect(waits[0]).resolves.toEqual({ index: 0 });
      await expect(waits[1]).resolves.toEqual({ index: 1 });
      await expect(waits[2]).rejects.toThrow('Run run_y failed');
      // Stored as well, for a waiter that comes late, and only for a while.
      expect(await redis.ttl(`${prefix}:job-result:tool-executions:job-piped-1`)).toBeGreaterThan(100);
    } finally {
      piped.disconnect();
    }
  });

  it('finds an outcome published before the wait began (a fast worker)', async () => {
    await publishJobOutcome(redis, prefix, 'tool-executions', 'job-early', { ok: true, value: 'early' });
    await expect(waiter.wait('toolExecutions', 'job-early', 5_000)).resolves.toBe('early');
  });

  it('an expectation registered before its job gets the outcome as a message, without reading its key', async () => {
    const expectation = await waiter.expect('toolExecutions', 'job-expected');
    await publishJobOutcome(redis, prefix, 'tool-executions', 'job-expected', { ok: true, value: 'pushed' });
    await expect(expectation.result(5_000)).resolves.toBe('pushed');
    // It never reads the stored outcome: one stored before it listened is not seen (wait() reads it).
    await publishJobOutcome(redis, prefix, 'tool-executions', 'job-stored-before', { ok: true, value: 'stored' });
    // Messages on one channel arrive in order: once this one is in, the one before went by unheard.
    const marker = await waiter.expect('toolExecutions', 'job-marker');
    await publishJobOutcome(redis, prefix, 'tool-executions', 'job-marker', { ok: true, value: 'marker' });
    await expect(marker.result(5_000)).resolves.toBe('marker');
    const late = await waiter.expect('toolExecutions', 'job-stored-before');
    await expect(late.result(300)).rejects.toBeInstanceOf(JobWaitTimeoutError);
    await expect(waiter.wait('toolExecutions', 'job-stored-before', 5_000)).resolves.toBe('stored');
  });

  it('a cancelled expectation keeps no waiter behind', async () => {
    const cancelled = await waiter.expect('toolExecutions', 'job-cancelled');
    cancelled.cancel();
    const again = await waiter.expect('toolExecutions', 'job-cancelled');
    await publishJobOutcome(redis, prefix, 'tool-executions', 'job-cancelled', { ok: true, value: 'once' });
    await expect(again.result(5_000)).resolves.toBe('once');
  });

  it('serves several waiters of one job, in different API processes', async () => {
    const both = Promise.all([waiter.wait('toolExecutions', 'job-shared', 5_000), otherWaiter.wait('toolExecutions', 'job-shared', 5_000)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await publishJobOutcome(redis, prefix, 'tool-executions', 'job-shared', { ok: true, value: 7 });
    await expect(both).resolves.toEqual([7, 7]);
  });

  it('rejects with the failure of a job that failed for good', async () => {
    const waiting = waiter.wait('toolExecutions', 'job-failed', 5_000).catch((error: unknown) => error);
    await publishJobOutcome(redis, prefix, 'tool-executions', 'job-failed', { ok: false, error: 'Run run_x does not exist' });
    expect(await waiting).toEqual(new Error('Run run_x does not exist'));
  });

  it('times out with JobWaitTimeoutError and keeps no waiter behind', async () => {
    await expect(waiter.wait('toolExecutions', 'job-never', 200)).rejects.toBeInstanceOf(JobWaitTimeoutError);
    // Another job of the same queue still arrives.
    const waiting = waiter.wait('toolExecutions', 'job-after', 5_000);
    await publishJobOutcome(redis, prefix, 'tool-executions', 'job-after', { ok: true, value: 'after' });
    await expect(waiting).resolves.toBe('after');
  });

  it('keeps outcomes of different prefixes apart', async () => {
    const waiting = waiter.wait('toolExecutions', 'job-prefixed', 400);
    await publishJobOutcome(redis, `${prefix}-other`, 'tool-executions', 'job-prefixed', { ok: true, value: 'wrong' });
    await expect(waiting).rejects.toBeInstanceOf(JobWaitTimeoutError);
    await redis.del(`${prefix}-other:job-result:tool-executions:job-prefixed`);
  });
});
