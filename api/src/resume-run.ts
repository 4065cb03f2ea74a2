import { RUN_KIND_JOBS, type Queues, type RunKind } from '@agentq/shared/queues';
import { Job } from 'bullmq';

/**
 * Wakes a parked run's job now. When the job has not finished parking yet, promote() cannot
 * apply; the worker re-checks PostgreSQL right after parking, so the decision is never lost.
 */
export async function wakeParkedRun(queues: Queues, run: { id: string; kind: string; queueJobId: string | null }): Promise<boolean> {
  const queue = queues[RUN_KIND_JOBS[run.kind as RunKind].queue];
  const job = await Job.fromId(queue, run.queueJobId ?? run.id);
  if (!job || !(await job.isDelayed())) return false;
  try {
    await job.promote();
    return true;
  } catch {
    return false;
  }
}
