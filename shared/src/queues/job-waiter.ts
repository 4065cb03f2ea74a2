import { Job, QueueEvents } from 'bullmq';
import { createWorkerRedis } from '../redis';
import { queueCatalog, type QueueKey } from './catalog';
import type { Queues } from './queues';

export type JobWaiter = {
  /** Resolves with the job's return value, rejects with its failure, or with a timeout error. */
  wait: (queueKey: QueueKey, jobId: string, timeoutMs: number) => Promise<unknown>;
  close: () => Promise<void>;
};

export class JobWaitTimeoutError extends Error {
  override name = 'JobWaitTimeoutError';
}

/**
 * Waits for jobs to finish through BullMQ's QueueEvents (one blocking connection per queue,
 * opened on first use), so a request can answer with a job's result.
 */
export function createJobWaiter(redisUrl: string, queues: Queues): JobWaiter {
  const events = new Map<QueueKey, Promise<QueueEvents>>();
  function eventsFor(queueKey: QueueKey) {
    let pending = events.get(queueKey);
    if (!pending) {
      const connection = createWorkerRedis(redisUrl);
      connection.on('error', () => {});
      const queueEvents = new QueueEvents(queueCatalog[queueKey].name, { connection, prefix: queues.prefix });
      queueEvents.on('error', () => {});
      pending = queueEvents.waitUntilReady().then(() => queueEvents);
      events.set(queueKey, pending);
    }
    return pending;
  }
  return {
    wait: async (queueKey, jobId, timeoutMs) => {
      const queueEvents = await eventsFor(queueKey);
      const job = await Job.fromId(queues[queueKey], jobId);
      if (!job) throw new Error(`Job ${jobId} not found`);
      try {
        return await job.waitUntilFinished(queueEvents, timeoutMs);
      } catch (error) {
        if (error instanceof Error && /timed out/i.test(error.message)) throw new JobWaitTimeoutError(`Job ${jobId} did not finish within ${timeoutMs} ms`);
        throw error;
      }
    },
    close: async () => {
      await Promise.all([...events.values()].map(async (pending) => (await pending).close().catch(() => {})));
    },
  };
}
