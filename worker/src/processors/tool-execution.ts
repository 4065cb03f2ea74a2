import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import type { WorkerDeps } from '../processor';

/** One standalone tool execution (POST /api/agent-tools/:id/execute). */
export async function processToolExecution(job: Job<{ runId: string }>, _deps: WorkerDeps): Promise<unknown> {
  throw new UnrecoverableError(`tool-exec processing is not available yet (run ${job.data.runId})`);
}
