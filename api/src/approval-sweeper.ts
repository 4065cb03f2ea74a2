import type { Database } from '@agentq/shared/db';
import type { Logger } from '@agentq/shared/logger';
import type { Queues } from '@agentq/shared/queues';
import { expireDueApprovals, runsReadyToWake } from '@agentq/shared/services';
import { wakeParkedRun } from './resume-run';

/** How often the API expires due approvals and wakes parked runs that have nothing left to wait for. */
export const APPROVAL_SWEEP_INTERVAL_MS = 5_000;

/**
 * The API's share of approval upkeep, so the inbox is right with no worker running: pending approvals
 * past their time become "expired" (reads also do this lazily), and parked runs whose approvals are
 * all settled are woken (a wake that failed while Redis was down is retried here).
 */
export function startApprovalSweeper(db: Database, queues: Queues, logger: Logger, intervalMs = APPROVAL_SWEEP_INTERVAL_MS): { stop: () => void } {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const expired = await expireDueApprovals(db);
      if (expired.length > 0) logger.info({ approvals: expired.map((row) => row.id) }, 'approvals expired');
      for (const run of await runsReadyToWake(db)) await wakeParkedRun(queues, run, logger);
    } catch (error) {
      logger.warn({ err: error }, 'approval sweep failed; will retry');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
