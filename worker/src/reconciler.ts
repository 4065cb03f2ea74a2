import { approvals, runs, type Database } from '@agentq/shared/db';
import type { Logger } from '@agentq/shared/logger';
import { ACTIVE_RUN_STATUSES } from '@agentq/shared/db';
import { addMissedFire, enqueueRunJob, findRunJob, listScheduleJobs, removeScheduleJob, runsWithLiveJobs, upsertScheduleJob, wakeRunJob, type Queues } from '@agentq/shared/queues';
import { deleteDeadEmailTokens, deleteExpiredSessions, deleteIdleTemporaryChats, deleteUnsentUploads, listEnabledSchedules, missedFire, runsReadyToWake, setRunJobId } from '@agentq/shared/services';
import { and, eq, inArray, lt, ne, or, sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import { RUN_LEASE_MS } from './run-lease';

/** Runs younger than this may still be on their way into Redis (the API enqueues right after inserting). */
const GRACE_MS = 5_000;
/** How often parked runs whose approvals are all decided are woken (the API wakes them at once unless Redis was down). */
export const WAKE_INTERVAL_MS = 2_000;
/** How often uploads no message carried for a day (deleteUnsentUploads), temporary chats unused for a day (deleteIdleTemporaryChats), expired browser sessions (deleteExpiredSessions) and used or expired emailed links (deleteDeadEmailTokens) are deleted. */
export const UPLOAD_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * PostgreSQL is the source of truth for runs: any run it calls queued, running or awaiting approval
 * that has no live job in Redis (Redis restarted without persistence, a job removed by hand) is
 * enqueued again under its own id, parked runs delayed until their earliest approval expires. A
 * running run only once its lease lapsed (run-lease.ts): a worker may still be executing it.
 * Returns the ids of the runs it restored.
 */
export async function reconcileRuns(db: Database, queues: Queues, logger: Logger): Promise<string[]> {
  const active = await db
    .select({ id: runs.id, kind: runs.kind, status: runs.status, queueJobId: runs.queueJobId })
    .from(runs)
    .where(
      and(
        inArray(runs.status, [...ACTIVE_RUN_STATUSES]),
        lt(runs.createdAt, new Date(Date.now() - GRACE_MS)),
        or(ne(runs.status, 'running'), lt(runs.updatedAt, sql`now() - make_interval(secs => ${RUN_LEASE_MS / 1000})`)),
      ),
    );
  const restored: string[] = [];
  // Most runs' jobs are waiting or running: found in a few reads per queue, not read one by one.
  const live = await runsWithLiveJobs(queues, active);
  for (const run of active) {
    if (live.has(run.id)) continue;
    const job = await findRunJob(queues, run);
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
    const added = await enqueueRunJob(queues, run, { delay });
    if (run.queueJobId !== added.id) await setRunJobId(db, run.id, added.id ?? run.id);
    restored.push(run.id);
    logger.warn({ runId: run.id, status: run.status, delayMs: delay }, 'run had no job in Redis; re-enqueued');
  }
  return restored;
}

/** How long a saved schedule is left to the request that saved it before the reconciler corrects its scheduler. */
export const SCHEDULE_SETTLE_MS = 60_000;

/**
 * PostgreSQL is the source of truth for schedules too: every enabled schedule (of an enabled user)
 * gets its BullMQ Job Scheduler back if Redis lost it (a restart without persistence, a wipe) or
 * fires on another cron or zone than its row says (an edit saved while Redis was down), and a
 * scheduler whose schedule is gone or disabled is removed. A lost scheduler's last missed fire is
 * made up once (missedFire). Returns the ids it restored, removed and fired to make up.
 */
export async function reconcileSchedules(db: Database, queues: Queues, logger: Logger, now = Date.now()): Promise<{ restored: string[]; removed: string[]; madeUp: string[] }> {
  const [enabled, existing] = await Promise.all([listEnabledSchedules(db), listScheduleJobs(queues)]);
  const restored: string[] = [];
  const madeUp: string[] = [];
  for (const schedule of enabled) {
    const scheduler = existing.get(schedule.id);
    existing.delete(schedule.id);
    if (scheduler && scheduler.cron === schedule.cron && (scheduler.timezone ?? 'UTC') === schedule.timezone) continue;
    // A schedule saved a moment ago has its scheduler set by the request that saved it; only one
    // left out of step for a while is the reconciler's (and a test's fresh schedule is its own file's).
    if (now - schedule.updatedAt.getTime() < SCHEDULE_SETTLE_MS) continue;
    await upsertScheduleJob(queues, schedule);
    restored.push(schedule.id);
    logger.warn({ scheduleId: schedule.id }, scheduler ? 'schedule fired on an outdated cron; scheduler updated' : 'schedule had no scheduler in Redis; restored');
    // Lost with Redis's data, the scheduler missed its fires meanwhile: the last one is made up once.
    const missed = scheduler ? null : missedFire(schedule, new Date(now));
    if (missed) {
      await addMissedFire(queues, schedule.id, missed);
      madeUp.push(schedule.id);
      logger.warn({ scheduleId: schedule.id, dueAt: missed.toISOString() }, 'schedule missed a fire while its scheduler was lost; fired once now');
    }
  }
  const removed: string[] = [];
  for (const id of existing.keys()) {
    await removeScheduleJob(queues, id);
    removed.push(id);
    logger.info({ scheduleId: id }, 'removed the scheduler of a schedule that is gone or disabled');
  }
  return { restored, removed, madeUp };
}

/**
 * Promotes every parked run that has nothing left to wait for (all approvals decided or expired, or
 * the run cancelled): a decision stored while Redis was down resumes within seconds of its return.
 * Returns the ids of the runs it woke.
 */
export async function wakeDecidedRuns(db: Database, queues: Queues, logger: Logger): Promise<string[]> {
  const woken: string[] = [];
  for (const run of await runsReadyToWake(db)) {
    if (await wakeRunJob(queues, run)) {
      woken.push(run.id);
      logger.info({ runId: run.id }, 'parked run woken by the reconciler');
    }
  }
  return woken;
}

/**
 * Reconciles runs and schedules now and then every `intervalMs`, wakes decided parked runs every `wakeIntervalMs`, and
 * does both at once whenever `redis` reconnects (what was decided during an outage resumes then).
 * With its first reconcile and then hourly, it deletes uploads left behind (a send given up on),
 * temporary chats unused for a day and expired browser sessions.
 */
export function startReconciler(
  db: Database,
  queues: Queues,
  logger: Logger,
  intervalMs: number,
  options: { redis?: Redis; wakeIntervalMs?: number } = {},
): { stop: () => void } {
  let running = false;
  let lastFull = 0;
  let lastSweep = 0;
  const tick = async (full: boolean) => {
    if (running) return;
    running = true;
    try {
      if (full || Date.now() - lastFull >= intervalMs) {
        lastFull = Date.now();
        await reconcileRuns(db, queues, logger);
        await reconcileSchedules(db, queues, logger);
      }
      if (Date.now() - lastSweep >= UPLOAD_SWEEP_INTERVAL_MS) {
        lastSweep = Date.now();
        const deleted = await deleteUnsentUploads(db);
        if (deleted > 0) logger.info({ files: deleted }, 'deleted uploads no message carried for a day');
        const chats = await deleteIdleTemporaryChats(db);
        if (chats > 0) logger.info({ chats }, 'deleted temporary chats unused for a day');
        const signIns = await deleteExpiredSessions(db);
        if (signIns > 0) logger.info({ sessions: signIns }, 'deleted expired browser sessions');
        const links = await deleteDeadEmailTokens(db);
        if (links > 0) logger.info({ emailTokens: links }, 'deleted used or expired emailed links');
      }
      await wakeDecidedRuns(db, queues, logger);
    } catch (error) {
      logger.warn({ err: error }, 'reconcile failed; will retry');
    } finally {
      running = false;
    }
  };
  void tick(true);
  const timer = setInterval(() => void tick(false), Math.min(options.wakeIntervalMs ?? WAKE_INTERVAL_MS, intervalMs));
  timer.unref();
  let lost = false;
  const onClose = () => {
    lost = true;
  };
  const onReady = () => {
    if (!lost) return;
    lost = false;
    void tick(true);
  };
  options.redis?.on('close', onClose);
  options.redis?.on('ready', onReady);
  return {
    stop: () => {
      clearInterval(timer);
      options.redis?.off('close', onClose);
      options.redis?.off('ready', onReady);
    },
  };
}
