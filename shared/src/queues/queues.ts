import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { queueCatalog, type JobName, type JobPayload, type QueueKey } from './catalog';

export type Queues = { [K in QueueKey]: Queue } & { prefix: string; close: () => Promise<void> };

/** Opens one BullMQ Queue per catalog entry on a shared connection. */
export function createQueues(connection: Redis, prefix: string): Queues {
  const entries = Object.entries(queueCatalog).map(([key, definition]) => {
    const queue = new Queue(definition.name, { connection, prefix, defaultJobOptions: definition.defaultJobOptions });
    // Connection errors surface on the calls that need Redis (503); don't crash on the emitter.
    queue.on('error', () => {});
    return [key, queue];
  });
  const queues = Object.fromEntries(entries) as { [K in QueueKey]: Queue };
  return {
    ...queues,
    prefix,
    close: async () => {
      await Promise.all(Object.values(queues).map((queue) => queue.close()));
    },
  };
}

/** Validates the payload against the catalog schema, then adds the job. */
export async function enqueue<Q extends QueueKey, J extends JobName<Q>>(
  queues: Queues,
  queueKey: Q,
  jobName: J,
  payload: JobPayload<Q, J>,
  options?: JobsOptions,
) {
  const jobs = queueCatalog[queueKey].jobs as Record<string, { parse: (value: unknown) => unknown }>;
  const schema = jobs[jobName];
  if (!schema) throw new Error(`Unknown job '${jobName}' for queue '${queueCatalog[queueKey].name}'. Known: ${Object.keys(jobs).join(', ')}`);
  const data = schema.parse(payload);
  return queues[queueKey].add(jobName, data, options);
}
