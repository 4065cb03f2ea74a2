import { runs, type Database } from '@agentq/shared/db';
import { and, eq, inArray, sql } from 'drizzle-orm';

/** How often a worker renews the lease of every run it is executing. */
export const RUN_LEASE_RENEW_MS = 2_000;
/**
 * A running run whose lease is older than this has no live worker. The reconciler restores a running
 * run without a job only then: after Redis lost its jobs (restart without persistence) the worker
 * still executing it goes on, and a second copy would repeat its model step and its tool calls.
 */
export const RUN_LEASE_MS = 10_000;

/** Active runs of this process, their lease (`runs.updated_at`, database clock) renewed together. */
export type RunLeases = {
  /** Holds the run's lease until the returned release is called. */
  hold: (runId: string) => () => void;
  stop: () => void;
};

export function startRunLeases(db: Database, renewMs = RUN_LEASE_RENEW_MS): RunLeases {
  const held = new Map<string, number>();
  const renew = async () => {
    if (held.size === 0) return;
    await db
      .update(runs)
      .set({ updatedAt: sql`now()` })
      .where(and(inArray(runs.id, [...held.keys()]), eq(runs.status, 'running')))
      // A database outage: the lease lapses only after RUN_LEASE_MS, and Redis still has the job.
      .catch(() => {});
  };
  const timer = setInterval(() => void renew(), renewMs);
  timer.unref();
  return {
    hold: (runId) => {
      held.set(runId, (held.get(runId) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const count = (held.get(runId) ?? 1) - 1;
        if (count > 0) held.set(runId, count);
        else held.delete(runId);
      };
    },
    stop: () => clearInterval(timer),
  };
}
