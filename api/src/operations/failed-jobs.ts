import { queueCatalog, type QueueKey, type Queues } from '@agentq/shared/queues';
import { Job } from 'bullmq';
import { ApiError, notFound } from '../errors';

export type FailedJob = {
  queue: string;
  id: string;
  name: string;
  runId: string | null;
  failedReason: string;
  attemptsMade: number;
  attempts: number;
  createdAt: string;
  finishedAt: string | null;
  /** The top of the last stack trace, enough to tell failures apart. */
  stack: string | null;
};

function toFailedJob(queue: string, job: Job): FailedJob {
  const lastStack = job.stacktrace?.at(-1);
  return {
    queue,
    id: String(job.id),
    name: job.name,
    runId: typeof (job.data as { runId?: unknown })?.runId === 'string' ? (job.data as { runId: string }).runId : null,
    failedReason: job.failedReason ?? '',
    attemptsMade: job.attemptsMade,
    attempts: job.opts.attempts ?? 1,
    createdAt: new Date(job.timestamp).toISOString(),
    finishedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
    stack: lastStack ? lastStack.split('\n').slice(0, 6).join('\n') : null,
  };
}

/** The queue whose BullMQ name is `name`, or 404. */
export function queueByName(queues: Queues, name: string) {
  const key = (Object.keys(queueCatalog) as QueueKey[]).find((candidate) => queueCatalog[candidate].name === name);
  if (!key) throw new ApiError(404, 'not_found', `No queue '${name}'. Queues: ${Object.values(queueCatalog).map((definition) => definition.name).join(', ')}`);
  return queues[key];
}

/** The most recently failed jobs across every catalog queue (or one), newest first. */
export async function listFailedJobs(queues: Queues, options: { queue?: string; limit: number }): Promise<{ items: FailedJob[]; total: number }> {
  const selected = options.queue ? [queueByName(queues, options.queue)] : (Object.keys(queueCatalog) as QueueKey[]).map((key) => queues[key]);
  const perQueue = await Promise.all(
    selected.map(async (queue) => {
      // The failed set is ordered by failure time; BullMQ returns the newest first.
      const [jobs, total] = await Promise.all([queue.getFailed(0, options.limit - 1), queue.getFailedCount()]);
      return { jobs: jobs.filter(Boolean).map((job) => toFailedJob(queue.name, job)), total };
    }),
  );
  const items = perQueue
    .flatMap((entry) => entry.jobs)
    .sort((a, b) => (b.finishedAt ?? '').localeCompare(a.finishedAt ?? ''))
    .slice(0, options.limit);
  return { items, total: perQueue.reduce((sum, entry) => sum + entry.total, 0) };
}

async function failedJob(queues: Queues, queueName: string, id: string) {
  const queue = queueByName(queues, queueName);
  const job = await Job.fromId(queue, id);
  if (!job) throw notFound('Job');
  const state = await job.getState();
  if (state !== 'failed') throw new ApiError(409, 'job_not_failed', `Job ${id} is ${state}, not failed; only failed jobs can be retried or discarded here`);
  return job;
}

/** Moves a failed job back to waiting with a fresh attempt budget; a worker picks it up again. */
export async function retryFailedJob(queues: Queues, queueName: string, id: string): Promise<FailedJob & { state: string }> {
  const job = await failedJob(queues, queueName, id);
  await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
  const state = await job.getState();
  return { ...toFailedJob(queueName, job), state };
}

/** Removes a failed job for good. */
export async function discardFailedJob(queues: Queues, queueName: string, id: string): Promise<void> {
  const job = await failedJob(queues, queueName, id);
  await job.remove();
}
