import type { Logger } from '@agentq/shared/logger';
import { wakeRunJob, type Queues } from '@agentq/shared/queues';
import { isDependencyDown, type RunToWake } from '@agentq/shared/services';

/**
 * Wakes a parked run's job now, best effort. The decision or cancel is already committed to
 * PostgreSQL, so when Redis is down the answer still reports it and the reconciler wakes the run
 * once Redis is back. When the job has not finished parking yet, the worker re-checks PostgreSQL
 * right after parking, so the decision is never lost.
 */
export async function wakeParkedRun(queues: Queues, run: RunToWake, logger?: Logger): Promise<boolean> {
  try {
    return await wakeRunJob(queues, run);
  } catch (error) {
    if (!isDependencyDown(error)) throw error;
    logger?.warn({ runId: run.id, err: error }, 'could not wake the run now (Redis unavailable); the reconciler will');
    return false;
  }
}
