import type { Redis } from 'ioredis';
import { createWorkerRedis, redisScript } from '../redis';
import { queueCatalog, type QueueKey } from './catalog';
import type { Queues } from './queues';

/** A wait registered before its job was added: no outcome can be published before it listens. */
export type JobExpectation = {
  /** Resolves with the job's return value, rejects with its failure, or with a timeout error. */
  result: (timeoutMs: number) => Promise<unknown>;
  /** Stops listening (the caller will not wait after all: the add failed, or it answers 202). */
  cancel: () => void;
};

export type JobWaiter = {
  /**
   * Listens for a job's outcome before the job exists: call it, add the job, then await `result`.
   * Nothing is read up front, since nothing can have been published yet.
   */
  expect: (queueKey: QueueKey, jobId: string) => Promise<JobExpectation>;
  /** Waits for a job that may already have finished: listens, then reads its stored outcome once. */
  wait: (queueKey: QueueKey, jobId: string, timeoutMs: number) => Promise<unknown>;
  close: () => Promise<void>;
};

export class JobWaitTimeoutError extends Error {
  override name = 'JobWaitTimeoutError';
}

/** How a finished job's outcome travels from the worker to a waiting request. */
export type JobOutcome = { ok: true; value: unknown } | { ok: false; error: string };

/** Long enough for any waiting request to read it; short enough to leave nothing behind. */
const RESULT_TTL_SECONDS = 120;
/** Safety net for a notification lost while the subscriber reconnected. */
const RECHECK_INTERVAL_MS = 1_000;

const resultKeys = (prefix: string) => ({
  channel: `${prefix}:job-results`,
  result: (queueName: string, jobId: string) => `${prefix}:job-result:${queueName}:${jobId}`,
});

/**
 * Stores an outcome and announces it: one script, so the outcomes of jobs finishing in one pass of
 * the event loop leave in one socket write (coalesceWrites; ioredis's auto-pipelining writes a
 * MULTI on its own), and Redis runs one command instead of MULTI, SET, PUBLISH and EXEC.
 * KEYS: the result key. ARGV: ttl, outcome, channel. The message carries the outcome too, so a
 * waiter needs no second read.
 */
const PUBLISH_JOB_OUTCOME_LUA = `
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[1])
redis.call('PUBLISH', ARGV[3], KEYS[1] .. '\\n' .. ARGV[2])
`;
const publishJobOutcomeScript = redisScript<[key: string, ttlSeconds: number, outcome: string, channel: string], unknown>('agentqPublishJobOutcome', PUBLISH_JOB_OUTCOME_LUA, {
  numberOfKeys: 1,
  definedBy: 'defineJobOutcomeCommands',
});

/** Defines publishJobOutcome's script on a connection; an auto-pipelined one needs it when it is created (redisScript). */
export const defineJobOutcomeCommands = publishJobOutcomeScript.define;

/**
 * The worker's side: stores a job's outcome under a short-lived key and announces it on the
 * results channel, in one round trip. Call it once the outcome is durable elsewhere (the run
 * row), so a waiter that misses it loses nothing but time.
 */
export async function publishJobOutcome(redis: Redis, prefix: string, queueName: string, jobId: string, outcome: JobOutcome): Promise<void> {
  const keys = resultKeys(prefix);
  await publishJobOutcomeScript.run(redis, keys.result(queueName, jobId), RESULT_TTL_SECONDS, JSON.stringify(outcome), keys.channel);
}

type Pending = { resolve: (outcome: JobOutcome) => void };

/**
 * Waits for jobs of queues that deliver their result (`deliversResult` in the catalog) through
 * Redis pub/sub: one subscription per API process. A wait registered before its job is added
 * (`expect`) needs no read: every outcome arrives as a message. One that may come late (`wait`)
 * listens first and then reads the stored outcome once, so an outcome published before the wait
 * began is read from its key. A periodic re-read covers a message lost during a reconnect.
 * (Before: BullMQ QueueEvents, a blocking stream read per queue, plus a job lookup per wait.)
 */
export function createJobWaiter(redisUrl: string, queues: Queues): JobWaiter {
  const keys = resultKeys(queues.prefix);
  const waiting = new Map<string, Set<Pending>>();
  let connections: Promise<{ commands: Redis; subscriber: Redis }> | undefined;

  function deliver(key: string, raw: string | null) {
    const pendings = waiting.get(key);
    if (raw === null || !pendings) return;
    waiting.delete(key);
    const outcome = JSON.parse(raw) as JobOutcome;
    for (const pending of pendings) pending.resolve(outcome);
  }

  function connect() {
    connections ??= (async () => {
      const commands = createWorkerRedis(redisUrl, { maxRetriesPerRequest: 1 });
      const subscriber = createWorkerRedis(redisUrl);
      commands.on('error', () => {});
      subscriber.on('error', () => {});
      subscriber.on('message', (channel: string, message: string) => {
        if (channel !== keys.channel) return;
        const newline = message.indexOf('\n');
        if (newline > 0) deliver(message.slice(0, newline), message.slice(newline + 1));
      });
      await subscriber.subscribe(keys.channel);
      return { commands, subscriber };
    })();
    connections.catch(() => (connections = undefined));
    return connections;
  }

  async function expect(queueKey: QueueKey, jobId: string): Promise<JobExpectation & { recheck: () => Promise<void> }> {
    const { commands } = await connect();
    const key = keys.result(queueCatalog[queueKey].name, jobId);
    let pending!: Pending;
    const outcome = new Promise<JobOutcome>((resolve) => (pending = { resolve }));
    const set = waiting.get(key) ?? new Set<Pending>();
    set.add(pending);
    waiting.set(key, set);
    const forget = () => {
      const current = waiting.get(key);
      current?.delete(pending);
      if (current?.size === 0) waiting.delete(key);
    };
    const recheck = () => commands.get(key).then((raw) => deliver(key, raw), () => {});
    return {
      recheck,
      cancel: forget,
      result: async (timeoutMs) => {
        const interval = setInterval(recheck, RECHECK_INTERVAL_MS);
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new JobWaitTimeoutError(`Job ${jobId} did not finish within ${timeoutMs} ms`)), timeoutMs);
        });
        try {
          const result = await Promise.race([outcome, timeout]);
          if (!result.ok) throw new Error(result.error);
          return result.value;
        } finally {
          clearTimeout(timer);
          clearInterval(interval);
          forget();
        }
      },
    };
  }

  return {
    expect,
    wait: async (queueKey, jobId, timeoutMs) => {
      const expectation = await expect(queueKey, jobId);
      // Registered first, read second: whichever way the race goes, the outcome is seen.
      void expectation.recheck();
      return expectation.result(timeoutMs);
    },
    close: async () => {
      const open = connections;
      connections = undefined;
      if (!open) return;
      const { commands, subscriber } = await open.catch(() => ({ commands: undefined, subscriber: undefined }));
      subscriber?.disconnect();
      commands?.disconnect();
    },
  };
}
