import { createWorkerRedis } from '@agentq/shared/redis';
import { randomPrefix, testRedisUrl } from '@agentq/shared/testing';
import { Queue, type Job, type Processor } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { MARKER_PUT_BACK, markerScripts, withQuietMarker } from './marker-scripts';
import { PromptWorker } from './prompt-worker';

const opened: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

function openQueue() {
  const prefix = randomPrefix('prompt');
  const name = 'prompt-test';
  const connection = createWorkerRedis(testRedisUrl());
  const queue = new Queue(name, { connection, prefix });
  opened.push({ close: async () => void (await queue.obliterate({ force: true }), await queue.close(), connection.disconnect()) });
  const startWorker = async (processor: Processor, concurrency = 50, autorun = true) => {
    const workerConnection = createWorkerRedis(testRedisUrl());
    const worker = new PromptWorker(name, processor, { connection: workerConnection, prefix, concurrency, autorun });
    opened.push({ close: async () => void (await worker.close(), workerConnection.disconnect()) });
    await worker.waitUntilReady();
    return worker;
  };
  return { queue, connection, startWorker };
}

/** How many of the worker's moveToActive calls had answered when each job's processor began. */
async function answeredFetchesAtStart(): Promise<number[]> {
  const { queue, startWorker } = openQueue();
  let answered = 0;
  const seen: number[] = [];
  let started: () => void = () => {};
  const worker = await startWorker(async () => {
    seen.push(answered);
    started();
  });
  const internals = worker as unknown as { moveToActive: (...args: unknown[]) => Promise<Job | undefined> };
  const moveToActive = internals.moveToActive.bind(worker);
  internals.moveToActive = async (...args) => {
    const job = await moveToActive(...args);
    answered++;
    return job;
  };
  // Each job reaches an idle worker: the one before it has finished and its loop is waiting. The
  // first is the worker's first job, taken after a start-up poll that found nothing.
  for (let index = 0; index < 9; index++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answered = 0;
    const start = new Promise<void>((resolve) => (started = resolve));
    await queue.add('job', { index }, { removeOnComplete: true });
    await start;
  }
  return seen.slice(1);
}

describe('PromptWorker', () => {
  it('starts a job that woke it from idle after the one moveToActive that took it, where BullMQ polls once more first', async () => {
    // BullMQ's own Worker reads 2 for most of them (its loop awaits an empty second poll before
    // the job starts), 1 when the previous job's settling is still in its queue of fetches.
    expect(await answeredFetchesAtStart()).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it("lets a job taken from idle run its start before the loop's next marker wait is sent", async () => {
    const { queue, startWorker } = openQueue();
    const order: string[] = [];
    let started: () => void = () => {};
    const worker = await startWorker(async () => {
      // A start that goes through many microtasks before its first request, as a chat run's does,
      // which undici then writes from an immediate (a reused keep-alive socket).
      for (let hop = 0; hop < 50; hop++) await Promise.resolve();
      await new Promise((resolve) => setImmediate(resolve));
      order.push('request');
      started();
    });
    const backend = (worker as unknown as { backend: { waitForJob: (...args: unknown[]) => Promise<unknown> } }).backend;
    const waitForJob = backend.waitForJob.bind(backend);
    backend.waitForJob = (...args) => {
      order.push('wait');
      return waitForJob(...args);
    };
    for (let index = 0; index < 4; index++) {
      // Idle: the loop is waiting on the marker when the job is added.
      await new Promise((resolve) => setTimeout(resolve, 100));
      order.length = 0;
      const start = new Promise<void>((resolve) => (started = resolve));
      await queue.add('job', { index }, { removeOnComplete: true });
      await start;
      await expect.poll(() => order.length).toBeGreaterThanOrEqual(2);
      // BullMQ's own loop sends its next wait while the job's start is still on its way (['wait', 'request']).
      expect(order.slice(0, 2)).toEqual(['request', 'wait']);
    }
  });

  it('leaves no job waiting: bursts and a steady trickle across two workers all run without a marker timeout', async () => {
    const { queue, startWorker } = openQueue();
    const done = new Set<number>();
    const processor = async (job: Job) => {
      await new Promise((resolve) => setTimeout(resolve, job.data.index % 3));
      done.add(job.data.index);
    };
    await startWorker(processor, 50);
    await startWorker(processor, 1);
    const began = Date.now();
    // A burst at once, then jobs one by one while the burst is being worked off, then another burst.
    await queue.addBulk(Array.from({ length: 40 }, (_, index) => ({ name: 'job', data: { index } })));
    for (let index = 40; index < 60; index++) {
      await queue.add('job', { index });
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await Promise.all(Array.from({ length: 40 }, (_, offset) => queue.add('job', { index: 60 + offset })));
    await expect.poll(() => done.size, { timeout: 4_000, interval: 20 }).toBe(100);
    // A job left unseen would wait for the marker wait's timeout (drainDelay, 5 s) before it ran.
    expect(Date.now() - began).toBeLessThan(4_000);
    expect(await queue.getJobCounts('wait', 'active', 'completed')).toEqual({ wait: 0, active: 0, completed: 100 });
  });

  it("runs BullMQ's scripts with the marker put back only while a job waits, through moveToActive and moveToFinished's fetch of the next job", async () => {
    // The installed BullMQ's scripts are the ones marker-scripts.ts rewrites (an upgrade that changes them fails here);
    // a script without the line, or with it twice, is not rewritten at all: the worker runs BullMQ's as shipped.
    expect(markerScripts()?.scripts.map((script) => script.name)).toEqual(['moveToActive', 'moveToFinished']);
    expect(withQuietMarker([{ name: 'moveToActive', content: 'return 1', keys: 1 }])).toBeUndefined();
    expect(withQuietMarker([{ name: 'moveToActive', content: `${MARKER_PUT_BACK}\n${MARKER_PUT_BACK}`, keys: 1 }])).toBeUndefined();
    expect(withQuietMarker([{ name: 'moveToActive', content: MARKER_PUT_BACK, keys: 1 }])?.[0]?.content).toContain('if rcall("LLEN", KEYS[1]) > 0');
    const { queue, connection: redis, startWorker } = openQueue();
    // Not running: polled by hand below, each step one script.
    const worker = await startWorker(async () => {}, 1, false);
    expect(worker.quietMarkers).toBe(true);
    const marker = `${queue.opts.prefix}:${queue.name}:marker`;
    const markers = async () => redis.zcard(marker);

    // The last waiting job taken: nothing to wake anyone for.
    await queue.add('job', { index: 0 });
    expect(await markers()).toBe(1);
    await redis.del(marker); // as an idle worker's wait pops it
    const first = (await worker.getNextJob('token-0', { block: false }))!;
    expect(first.data).toEqual({ index: 0 });
    expect(await markers()).toBe(0);

    // Jobs still waiting: the marker goes back, so the next idle worker wakes (a bulk add's chain).
    await queue.addBulk([1, 2].map((index) => ({ name: 'job', data: { index } })));
    await redis.del(marker);
    await first.moveToCompleted('done', 'token-0', false);
    const second = (await worker.getNextJob('token-1', { block: false }))!;
    expect(second.data).toEqual({ index: 1 });
    expect(await markers()).toBe(1);

    // moveToFinished taking the next job: the last one, so no marker; a prioritized job counts as waiting.
    await redis.del(marker);
    const [third] = (await second.moveToCompleted('done', 'token-1', true)) as [unknown[], string];
    expect(third).toBeTruthy();
    expect(await markers()).toBe(0);
    expect(await queue.getJobCounts('wait', 'active', 'completed')).toEqual({ wait: 0, active: 1, completed: 2 });
    await queue.add('job', { index: 3 }, { priority: 1 });
    await queue.add('job', { index: 4 }, { priority: 2 });
    await redis.del(marker);
    const fourth = (await worker.getNextJob('token-3', { block: false }))!;
    expect(fourth.data).toEqual({ index: 3 });
    expect(await markers()).toBe(1);
  });

  it('wakes a second idle worker while jobs wait after the first one took its job', async () => {
    const { queue, startWorker } = openQueue();
    const ranBy = new Map<string, number>();
    const processor = (id: string) => async () => {
      ranBy.set(id, (ranBy.get(id) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 30));
    };
    await startWorker(processor('a'), 1);
    await startWorker(processor('b'), 1);
    await new Promise((resolve) => setTimeout(resolve, 100)); // both idle on the marker
    // One add, one marker: the worker it wakes puts it back for the other, as the jobs behind it wait.
    await queue.addBulk(Array.from({ length: 10 }, (_, index) => ({ name: 'job', data: { index } })));
    await expect.poll(() => (ranBy.get('a') ?? 0) + (ranBy.get('b') ?? 0), { timeout: 4_000, interval: 20 }).toBe(10);
    expect(ranBy.get('a')).toBeGreaterThan(0);
    expect(ranBy.get('b')).toBeGreaterThan(0);
  });
});
