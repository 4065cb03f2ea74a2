import type { JobPayload } from '@agentq/shared/queues';
import { deliverAccountEmail, type AccountEmailOutcome } from '@agentq/shared/services';
import { UnrecoverableError, type Job } from 'bullmq';
import type { WorkerDeps } from '../processor';

/**
 * One account email ("Forgot password?" or a sign-up's verification link): made and sent here, off
 * the request. An SMTP failure throws so BullMQ retries; the log names the purpose, the outcome and
 * the SMTP error code, never the address's secret link or the SMTP credentials.
 */
export async function processAccountEmail(job: Job<JobPayload<'accountEmails', 'account-email'>>, deps: WorkerDeps): Promise<{ outcome: AccountEmailOutcome }> {
  if (!deps.email) throw new UnrecoverableError('This worker has no SMTP server: set SMTP_URL (or SMTP_HOST) and SMTP_FROM on the workers too');
  const attempt = job.attemptsMade + 1;
  try {
    const outcome = await deliverAccountEmail(deps.db, deps.email, job.data);
    deps.logger.info({ jobId: job.id, purpose: job.data.purpose, outcome, attempt }, 'account email');
    return { outcome };
  } catch (error) {
    const failure = error as { name?: string; message?: string; code?: string; responseCode?: number };
    deps.logger.warn({ jobId: job.id, purpose: job.data.purpose, attempt, error: failure.message, code: failure.code, responseCode: failure.responseCode }, 'account email failed');
    throw error;
  }
}
