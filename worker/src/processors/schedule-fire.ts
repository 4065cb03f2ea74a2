import type { JobPayload } from '@agentq/shared/queues';
import { enqueueChatTurn } from '@agentq/shared/queues';
import { assertWithinUsageLimit, fireSchedule } from '@agentq/shared/services';
import type { Job } from 'bullmq';
import type { WorkerDeps } from '../processor';

/**
 * One fire of a user's schedule: starts its chat run as a send does (fireSchedule → askInSession)
 * and adds the run's chat turn once the run is on disk. The fire's job id, unique per fire, is the
 * run's idempotency key: a retried fire finds the run it started and only adds its turn again (a
 * no-op when it is there). A fire that starts nothing (schedule gone or disabled, its chat still
 * busy, its user over their usage limit) completes with the reason, which fireSchedule recorded on
 * the schedule.
 */
export async function processScheduleFire(job: Job<JobPayload<'scheduleFires', 'schedule-fire'>>, deps: WorkerDeps): Promise<{ status: 'started'; runId: string; sessionId: string } | { status: 'skipped'; reason: string }> {
  const admit = (asker: { userId: string; isAdmin?: boolean }) => assertWithinUsageLimit({ db: deps.db, redis: deps.redis, prefix: deps.config.prefix }, { id: asker.userId, isAdmin: asker.isAdmin });
  const fire = await fireSchedule(deps.db, job.data.scheduleId, { fireId: String(job.id), admit });
  if (fire.status === 'skipped') {
    deps.logger.info({ scheduleId: job.data.scheduleId, reason: fire.reason }, 'schedule fire skipped');
    return fire;
  }
  await fire.durable;
  // Should this add fail, the run stays queued and the reconciler enqueues it (reconcileRuns).
  await enqueueChatTurn(deps.queues, fire.run, fire.opening);
  return { status: 'started', runId: fire.run.id, sessionId: fire.sessionId };
}
