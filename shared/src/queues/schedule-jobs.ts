import type { Queues } from './queues';

/** What BullMQ needs of a schedule to fire it: the row's id, cron and time zone. */
export type SchedulerSpec = { id: string; cron: string; timezone: string };

/**
 * Creates or replaces the schedule's BullMQ Job Scheduler (id = the schedule's id): each fire adds a
 * `schedule-fire` job with an id of its own. Idempotent, so the API calls it on every change and the
 * reconciler on every pass.
 */
export async function upsertScheduleJob(queues: Queues, schedule: SchedulerSpec): Promise<void> {
  await queues.scheduleFires.upsertJobScheduler(schedule.id, { pattern: schedule.cron, tz: schedule.timezone }, { name: 'schedule-fire', data: { scheduleId: schedule.id } });
}

/** Removes the schedule's Job Scheduler and its next fire; a missing one is not an error. */
export async function removeScheduleJob(queues: Queues, scheduleId: string): Promise<void> {
  await queues.scheduleFires.removeJobScheduler(scheduleId);
}

/**
 * Adds the one fire of a schedule that was due at `due` but never happened (its scheduler was lost
 * with Redis's data). The job id names the due time, so reconcilers racing add it once; it is also
 * the fire's run's idempotency key.
 */
export async function addMissedFire(queues: Queues, scheduleId: string, due: Date): Promise<void> {
  await queues.scheduleFires.add('schedule-fire', { scheduleId }, { jobId: `missed:${scheduleId}:${due.getTime()}` });
}

/** Schedulers per read: the reconciler reads them all, page by page. */
const SCHEDULER_PAGE = 1_000;

/** Every Job Scheduler of the schedule queue, by id (= the schedule's id), with the cron and zone it fires on. */
export async function listScheduleJobs(queues: Queues): Promise<Map<string, { cron?: string; timezone?: string }>> {
  const found = new Map<string, { cron?: string; timezone?: string }>();
  for (let start = 0; ; start += SCHEDULER_PAGE) {
    const page = await queues.scheduleFires.getJobSchedulers(start, start + SCHEDULER_PAGE - 1, true);
    for (const scheduler of page) found.set(scheduler.key, { cron: scheduler.pattern, timezone: scheduler.tz });
    if (page.length < SCHEDULER_PAGE) break;
  }
  return found;
}
