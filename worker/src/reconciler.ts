import { approvals, runs } from '@agentq/shared/db';
import type { Logger } from '@agentq/shared/logger';
import { enqueue, RUN_KIND_JOBS, type Queues } from '@agentq/shared/queues';
import { ACTIVE_RUN_STATUSES } from '@agentq/shared/db';
import { setRunJobId } from '@agentq/shared/services';
import type { Database } from '@agentq/shared/db';
import { Job } from 'bullmq';
import { and, eq, inArray, lt } from 'drizzle-orm';

/** Runs younger than this may still be on their way into Redis (the API enqueues right after inserting). */
const GRACE_MS = 5_000;

/**
 * PostgreSQL is the source of truth for runs: any run it calls queued, running or awaiting approval
 * that has no live job in Redis (Redis restarted without persistence, a job removed by hand) is
 * enqueued again under its own id, parked runs delayed until their earliest approval expires.
 * Returns the ids of the runs it restored.
 */
export async function reconcileRuns(db: Database, queues: Queues, logger: Logger): Promise<string[]> {
  const active = await db
    .select({ id: runs.id, kind: runs.kind, status: runs.status, queueJobId: runs.queueJobId })
    .from(runs)
    .where(and(inArray(runs.status, [...ACTIVE_RUN_STATUSES]), lt(runs.createdAt, new Date(Date.now() - GRACE_MS))));
  const restored: string[] = [];
  for (const run of active) {
    const { queue: queueKey, job: jobName } = RUN_KIND_JOBS[run.kind];
    const queue = queues[queueKey];
    const jobId = run.queueJobId ?? run.id;
    const job = await Job.fromId(queue, jobId);
    if (job) {
      const state = await job.getState();
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
      // The job ended but the run did not: start it over from its checkpoint.
      await job.remove().catch(() => {});
    }
    let delay = 0;
    if (run.status === 'awaiting_approval') {
      const pending = await db
        .select({ expiresAt: approvals.expiresAt })
        .from(approvals)
        .where(and(eq(approvals.runId, run.id), eq(approvals.status, 'pending')));
      if (pending.length > 0) delay = Math.max(0, Math.min(...pending.map((row) => row.expiresAt.getTime())) - Date.now() + 250);
    }
    const added = await enqueue(queues, queueKey, jobName as never, { runId: run.id } as never, { jobId: run.id, delay });
    if (run.queueJobId !== added.id) await setRunJobId(db, run.id, added.id ?? run.id);
    restored.push(run.id);
    logger.warn({ runId: run.id, status: run.status, delayMs: delay }, 'run had no job in Redis; re-enqueued');
  }
  return restored;
}

/** Reconciles now and then every `intervalMs` until stopped. */
export function startReconciler(db: Database, queues: Queues, logger: Logger, intervalMs: number): { stop: () => void } {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await reconcileRuns(db, queues, logger);
    } catch (error) {
      logger.warn({ err: error }, 'reconcile failed; will retry');
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
