import { ErrorCode, Job, type JobsOptions } from 'bullmq';
import { RUN_KIND_JOBS, type RunJob, type RunKind } from './catalog';
import { enqueue, type Queues } from './queues';
import { isDependencyDown } from '../services/errors';

type RunRef = { id: string; kind: RunKind; queueJobId: string | null };

/** The queue and job name that process this run's kind. */
export function runJobFor(run: Pick<RunRef, 'kind'>): RunJob {
  return RUN_KIND_JOBS[run.kind];
}

/** The run's BullMQ job, if Redis still has it. */
export async function findRunJob(queues: Queues, run: RunRef): Promise<Job | undefined> {
  return (await Job.fromId(queues[runJobFor(run).queue], run.queueJobId ?? run.id)) ?? undefined;
}

/**
 * Moves a parked (delayed) run job to waiting now. False when there is nothing to promote: no job,
 * or it is not delayed (still parking: the worker re-checks PostgreSQL right after parking).
 * One script call: BullMQ's promote checks the job's state itself, so the job is not read first.
 */
export async function wakeRunJob(queues: Queues, run: RunRef): Promise<boolean> {
  const { queue, job } = runJobFor(run);
  try {
    await new Job(queues[queue], job, {}, {}, run.queueJobId ?? run.id).promote();
    return true;
  } catch (error) {
    // An outage is the caller's to handle; a missing or not-delayed job answers with an error code.
    if (isDependencyDown(error)) throw error;
    return false;
  }
}

/**
 * True when BullMQ refused a command on a job because the job is no longer this worker's: its key or
 * its lock is gone (Redis restarted without persistence) or another worker holds it. The run is then
 * PostgreSQL's to restore (the reconciler), not a failure of the run.
 */
export function isJobGone(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === ErrorCode.JobNotExist || code === ErrorCode.JobLockNotExist || code === ErrorCode.JobLockMismatch;
}

/** Enqueues the run's job under the run's own id (a duplicate add is a no-op in BullMQ). */
export async function enqueueRunJob(queues: Queues, run: Pick<RunRef, 'id' | 'kind'>, options: JobsOptions = {}) {
  const { queue, job } = runJobFor(run);
  return enqueue(queues, queue, job as never, { runId: run.id } as never, { jobId: run.id, ...options });
}
