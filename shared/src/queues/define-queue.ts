import type { JobsOptions } from 'bullmq';
import type { z } from 'zod';

export type QueueDefinition<Name extends string = string, Jobs extends Record<string, z.ZodType> = Record<string, z.ZodType>> = {
  name: Name;
  jobs: Jobs;
  defaultJobOptions: JobsOptions;
  /** The worker publishes each job's outcome for a waiting request (see job-waiter.ts). */
  deliversResult?: boolean;
};

/**
 * Declares a queue as data: its name, each job's payload schema and default options.
 * The API enqueues through it and the worker builds its Worker from the same object.
 * @example
 * export const chatTurns = defineQueue({ name: 'chat-turns', jobs: { 'chat-turn': z.object({ runId: z.string() }) } });
 */
export function defineQueue<const Name extends string, const Jobs extends Record<string, z.ZodType>>(definition: {
  name: Name;
  jobs: Jobs;
  defaultJobOptions?: JobsOptions;
  deliversResult?: boolean;
}): QueueDefinition<Name, Jobs> {
  return { defaultJobOptions: {}, ...definition };
}
