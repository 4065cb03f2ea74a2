import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import type { WorkerDeps } from '../processor';

/** The tool loop for one chat run (SPEC §3). */
export async function processChatTurn(job: Job<{ runId: string }>, _deps: WorkerDeps): Promise<unknown> {
  throw new UnrecoverableError(`chat-turn processing is not available yet (run ${job.data.runId})`);
}
