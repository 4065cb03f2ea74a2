import { createHash } from 'node:crypto';
import { CronExpressionParser } from 'cron-parser';
import { and, asc, count, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { chatSessions, runs, schedules, SCHEDULE_TARGETS, users, type RunStatus } from '../db/schema';
import { ID_PREFIXES, newId } from '../ids';
import { UsageLimitReachedError } from './usage-limits';
import { ActiveRunConflictError, askInSession, checkRunChoices, createChatSession, startRunInputSchema, type Asker, type StartedRun } from './chat';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from './errors';
import { groupIdsOfUserColumn } from './groups/groups';

/**
 * A user's scheduled prompts (like ChatGPT's Tasks): a prompt sent to an agent on a cron schedule,
 * each fire starting a chat run through askInSession, as a send does. Every query is scoped to the
 * acting user, so another user's schedule is indistinguishable from a missing one. BullMQ's Job
 * Scheduler for each enabled row is kept by the caller (queues/schedule-jobs.ts) and restored by the
 * worker's reconciler.
 */

export type Schedule = typeof schedules.$inferSelect;

/** How many schedules one user may keep. */
export const SCHEDULES_PER_USER = 20;
/** A non-admin's schedule fires at most once a minute. */
export const MIN_SCHEDULE_INTERVAL_MS = 60_000;
/** Consecutive fires compared for the interval check: enough to catch "0,10,20 * * * * *"-like bursts. */
const INTERVAL_SAMPLES = 8;

/** True when `timezone` is an IANA zone this runtime knows (Intl throws a RangeError otherwise). */
export function isTimeZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The next `count` fires of `cron` read in `timezone`, after `from`, as cron-parser (BullMQ's own)
 * computes them. Throws with cron-parser's message when the expression is invalid or never fires.
 */
export function nextFireTimes(cron: string, timezone: string, count = 1, from = new Date()): Date[] {
  const interval = CronExpressionParser.parse(cron, { tz: timezone, currentDate: from });
  return Array.from({ length: count }, () => interval.next().toDate());
}

/**
 * The fire of `schedule` that was due last before `now` and never happened (no run or skip recorded
 * since it was due, and the schedule unchanged since), or null: what to make up once for a schedule
 * whose Job Scheduler Redis lost (as systemd's `Persistent=` timers do, one fire, not every one missed).
 */
export function missedFire(schedule: Pick<Schedule, 'cron' | 'timezone' | 'updatedAt' | 'lastRunAt' | 'lastSkippedAt'>, now = new Date()): Date | null {
  const due = CronExpressionParser.parse(schedule.cron, { tz: schedule.timezone, currentDate: now }).prev().toDate();
  const lastSeen = Math.max(schedule.updatedAt.getTime(), schedule.lastRunAt?.getTime() ?? 0, schedule.lastSkippedAt?.getTime() ?? 0);
  return due.getTime() > lastSeen ? due : null;
}

/** Why `cron` cannot be a schedule's (5 or 6 fields, parsable, firing at least once), or null. */
function cronProblem(cron: string, timezone: string): string | null {
  const fields = cron.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) return 'Use 5 fields (minute hour day month weekday) or 6 with seconds first, e.g. "0 9 * * 1-5"';
  try {
    nextFireTimes(cron, timezone);
    return null;
  } catch (error) {
    return `Not a cron expression this scheduler can run: ${(error as Error).message}`;
  }
}

const cronField = z.string().trim().min(1, 'Enter a cron expression, e.g. "0 9 * * *"').max(200, 'Keep the cron expression under 200 characters');
const timezoneField = z.string().trim().min(1).max(100).refine(isTimeZone, 'Use an IANA time zone, e.g. "Europe/Paris" or "UTC"');

const scheduleFields = {
  name: z.string().trim().min(1, 'Give the schedule a name').max(100, 'Keep the name under 100 characters'),
  prompt: z.string().trim().min(1, 'Write the prompt to send').max(8_000, 'Keep the prompt under 8,000 characters'),
  agentId: z.string().min(1).max(100).nullable(),
  modelId: z.string().min(1).max(100).nullable(),
  cron: cronField,
  timezone: timezoneField,
  enabled: z.boolean(),
  target: z.enum(SCHEDULE_TARGETS, { error: 'Send "new-chat" or "same-chat"' }),
};

/** Checks the cron in the zone it will be read in (when both are known and the zone is valid). */
function refineCron(input: { cron?: string; timezone?: string }, context: z.RefinementCtx) {
  if (input.cron === undefined) return;
  const timezone = input.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) return;
  const problem = cronProblem(input.cron, timezone);
  if (problem) context.addIssue({ code: 'custom', path: ['cron'], message: problem });
}

export const createScheduleInputSchema = z
  .object({
    ...scheduleFields,
    agentId: scheduleFields.agentId.optional(),
    modelId: scheduleFields.modelId.optional(),
    timezone: timezoneField.default('UTC'),
    enabled: z.boolean().default(true),
    target: scheduleFields.target.default('new-chat'),
  })
  .superRefine(refineCron);
export const updateScheduleInputSchema = z
  .object(scheduleFields)
  .partial()
  .superRefine(refineCron)
  .refine((input) => Object.keys(input).length > 0, 'Send a name, prompt, agentId, modelId, cron, timezone, enabled or target');
export type CreateScheduleInput = z.input<typeof createScheduleInputSchema>;
export type UpdateScheduleInput = z.input<typeof updateScheduleInputSchema>;

/** A schedule as the API shows it: when it fires next and how its last fire went. */
export type ScheduleView = Schedule & {
  /** The next fire (null while disabled). */
  nextRunAt: Date | null;
  lastRunStatus: RunStatus | null;
  /** The chat the last run answered in. */
  lastRunSessionId: string | null;
};

/** Refuses a cron firing more than once a minute unless the asker is an admin. */
function checkFrequency(cron: string, timezone: string, asker: Asker): void {
  if (asker.isAdmin) return;
  const times = nextFireTimes(cron, timezone, INTERVAL_SAMPLES);
  for (let index = 1; index < times.length; index++) {
    if (times[index]!.getTime() - times[index - 1]!.getTime() < MIN_SCHEDULE_INTERVAL_MS) {
      throw new InvalidInputError('A schedule may fire at most once a minute', [{ path: ['cron'], message: 'Fires more often than once a minute' }]);
    }
  }
}

function nextRunOf(schedule: Pick<Schedule, 'enabled' | 'cron' | 'timezone'>): Date | null {
  if (!schedule.enabled) return null;
  try {
    return nextFireTimes(schedule.cron, schedule.timezone)[0]!;
  } catch {
    return null;
  }
}

const viewColumns = { schedule: schedules, lastRunStatus: runs.status, lastRunSessionId: runs.sessionId };
type ViewRow = { schedule: Schedule; lastRunStatus: RunStatus | null; lastRunSessionId: string | null };
const toView = ({ schedule, lastRunStatus, lastRunSessionId }: ViewRow): ScheduleView => ({ ...schedule, nextRunAt: nextRunOf(schedule), lastRunStatus, lastRunSessionId });

/** The user's schedules, oldest first, each with its next fire and its last run's outcome. */
export async function listSchedules(db: Database, userId: string): Promise<ScheduleView[]> {
  const rows = await db.select(viewColumns).from(schedules).leftJoin(runs, eq(runs.id, schedules.lastRunId)).where(eq(schedules.userId, userId)).orderBy(asc(schedules.createdAt), asc(schedules.id));
  return rows.map(toView);
}

/** One of the user's schedules as the list shows it; NotFound for anyone else's. */
export async function getSchedule(db: Database, userId: string, id: string): Promise<ScheduleView> {
  const [row] = await db.select(viewColumns).from(schedules).leftJoin(runs, eq(runs.id, schedules.lastRunId)).where(and(eq(schedules.id, id), eq(schedules.userId, userId)));
  if (!row) throw new NotFoundError('Schedule', id);
  return toView(row);
}

/**
 * Stores a schedule of `asker` after the checks a send makes (the agent exists, the model is usable
 * by this user) and the frequency check. The caller adds its Job Scheduler (upsertScheduleJob).
 */
export async function createSchedule(db: Database, asker: Asker, input: CreateScheduleInput): Promise<ScheduleView> {
  const values = createScheduleInputSchema.parse(input);
  checkFrequency(values.cron, values.timezone, asker);
  await checkRunChoices(db, asker, values);
  const [{ total }] = (await db.select({ total: count() }).from(schedules).where(eq(schedules.userId, asker.userId))) as [{ total: number }];
  if (total >= SCHEDULES_PER_USER) throw new ConflictError(`You can keep up to ${SCHEDULES_PER_USER} schedules: delete one first`, { limit: SCHEDULES_PER_USER });
  const [row] = await db
    .insert(schedules)
    .values({ id: newId('schedule'), userId: asker.userId, ...values, agentId: values.agentId ?? null, modelId: values.modelId ?? null })
    .returning();
  return toView({ schedule: row!, lastRunStatus: null, lastRunSessionId: null });
}

/** Changes a schedule of `asker` (the same checks as createSchedule for what changes). The caller re-syncs its Job Scheduler. */
export async function updateSchedule(db: Database, asker: Asker, id: string, input: UpdateScheduleInput): Promise<ScheduleView> {
  const changes = updateScheduleInputSchema.parse(input);
  const current = await getSchedule(db, asker.userId, id);
  const cron = changes.cron ?? current.cron;
  const timezone = changes.timezone ?? current.timezone;
  if (changes.timezone !== undefined && changes.cron === undefined) {
    const problem = cronProblem(cron, timezone);
    if (problem) throw new InvalidInputError(problem, [{ path: ['cron'], message: problem }]);
  }
  if (changes.cron !== undefined || changes.timezone !== undefined) checkFrequency(cron, timezone, asker);
  await checkRunChoices(db, asker, { agentId: changes.agentId, modelId: changes.modelId });
  // A chat kept for `same-chat` belongs to the agent it was started with: a new agent starts a new one.
  const newChat = changes.agentId !== undefined && changes.agentId !== current.agentId ? { sessionId: null } : {};
  const [row] = await db
    .update(schedules)
    .set({ ...changes, ...newChat })
    .where(and(eq(schedules.id, id), eq(schedules.userId, asker.userId)))
    .returning();
  if (!row) throw new NotFoundError('Schedule', id);
  return { ...current, ...row, nextRunAt: nextRunOf(row) };
}

/** Deletes a schedule of the user (its chats and runs stay). The caller removes its Job Scheduler. */
export async function deleteSchedule(db: Database, userId: string, id: string): Promise<void> {
  const deleted = await db.delete(schedules).where(and(eq(schedules.id, id), eq(schedules.userId, userId))).returning({ id: schedules.id });
  if (deleted.length === 0) throw new NotFoundError('Schedule', id);
}

/** Every enabled schedule of an enabled user: what the reconciler keeps a Job Scheduler for. */
export function listEnabledSchedules(db: Database): Promise<Pick<Schedule, 'id' | 'cron' | 'timezone' | 'updatedAt' | 'lastRunAt' | 'lastSkippedAt'>[]> {
  return db
    .select({ id: schedules.id, cron: schedules.cron, timezone: schedules.timezone, updatedAt: schedules.updatedAt, lastRunAt: schedules.lastRunAt, lastSkippedAt: schedules.lastSkippedAt })
    .from(schedules)
    .innerJoin(users, eq(users.id, schedules.userId))
    .where(and(eq(schedules.enabled, true), isNull(users.disabledAt)));
}

/** A fire that started (or, retried, found) a run, or one that started nothing and says why. */
export type ScheduleFire = ({ status: 'started'; sessionId: string } & StartedRun) | { status: 'skipped'; reason: string };

/**
 * One fire of schedule `scheduleId`: reads the schedule and its user (instructions, role; no cache),
 * picks the chat (a new one, or the schedule's own, created on its first fire) and asks the prompt
 * there with askInSession, as a send does. `fireId` (the BullMQ job id of the fire) is the run's
 * idempotency key: a retried fire returns the run it started. A fire whose chat still has a run
 * going, or whose schedule, user or model no longer allows it, starts nothing and is recorded as
 * skipped. `manual` (Run now) fires for that user only, even while the schedule is disabled. The
 * caller enqueues the run's chat turn once it is durable (enqueueChatTurn).
 */
export async function fireSchedule(
  db: Database,
  scheduleId: string,
  options: {
    fireId: string;
    manual?: { userId: string };
    /** Checks the schedule's user may start a run now (their usage limit) before anything is made; throws UsageLimitReachedError if not. */
    admit?: (asker: Asker) => Promise<void>;
  },
): Promise<ScheduleFire> {
  const [row] = await db
    .select({ schedule: schedules, user: { role: users.role, customInstructions: users.customInstructions, disabledAt: users.disabledAt, groupIds: groupIdsOfUserColumn } })
    .from(schedules)
    .innerJoin(users, eq(users.id, schedules.userId))
    .where(and(eq(schedules.id, scheduleId), options.manual ? eq(schedules.userId, options.manual.userId) : undefined));
  if (!row) {
    if (options.manual) throw new NotFoundError('Schedule', scheduleId);
    return { status: 'skipped', reason: 'The schedule no longer exists' };
  }
  const { schedule, user } = row;
  if (!options.manual && !schedule.enabled) return { status: 'skipped', reason: 'The schedule is disabled' };
  if (user.disabledAt) return skip(db, schedule.id, 'The user is disabled');
  const idempotencyKey = `schedule:${options.fireId}`;
  const asker: Asker = { userId: schedule.userId, userInstructions: user.customInstructions, isAdmin: user.role === 'admin', groupIds: user.groupIds };

  // A retried fire: the run it started, whatever became of the chat since.
  const [earlier] = await db.select().from(runs).where(and(eq(runs.userId, schedule.userId), eq(runs.idempotencyKey, idempotencyKey)));
  if (earlier) return { status: 'started', sessionId: earlier.sessionId!, run: earlier, created: false, durable: Promise.resolve() };

  // The agent or model may have been limited to groups the user is not in since the schedule was saved.
  const refused = await checkRunChoices(db, asker, { agentId: schedule.agentId, modelId: schedule.modelId }).then(
    () => null,
    (error: unknown) => {
      if (error instanceof ForbiddenError || error instanceof InvalidInputError) return error.message;
      throw error;
    },
  );
  if (refused) return skip(db, schedule.id, refused);

  // Over the user's usage limit: nothing is made. Run now hears why (a 429); a timed fire is skipped with the reason.
  try {
    await options.admit?.(asker);
  } catch (error) {
    if (error instanceof UsageLimitReachedError && !options.manual) return skip(db, schedule.id, error.message);
    throw error;
  }

  const { sessionId, createdForFire } = await targetChat(db, schedule, asker, options.fireId);
  const input = startRunInputSchema.parse({ content: schedule.prompt, ...(schedule.agentId && { agentId: schedule.agentId }), ...(schedule.modelId && { modelId: schedule.modelId }) });
  let started: StartedRun;
  try {
    started = await askInSession(db, { ...asker, sessionId, input, idempotencyKey });
  } catch (error) {
    // A fire that starts nothing leaves no empty chat behind (a retry makes it again).
    if (createdForFire) await db.delete(chatSessions).where(and(eq(chatSessions.id, sessionId), eq(chatSessions.userId, schedule.userId)));
    // The database allows one active run per chat: a busy chat refuses the run.
    if (error instanceof ActiveRunConflictError) return skip(db, schedule.id, 'The chat\'s previous run was still going');
    // The model or agent is gone, disabled or no longer the user's to pick: retrying will not help.
    if (error instanceof InvalidInputError || error instanceof ForbiddenError) return skip(db, schedule.id, error.message);
    throw error;
  }
  await db.update(schedules).set({ lastRunAt: started.run.createdAt, lastRunId: started.run.id, updatedAt: schedule.updatedAt }).where(eq(schedules.id, schedule.id));
  return { status: 'started', sessionId, ...started };
}

/** Records a fire that started nothing; the schedule's own `updatedAt` (an edit's time) stays. */
async function skip(db: Database, scheduleId: string, reason: string): Promise<ScheduleFire> {
  await db.update(schedules).set({ lastSkippedAt: new Date(), lastSkipReason: reason, updatedAt: sql`${schedules.updatedAt}` }).where(eq(schedules.id, scheduleId));
  return { status: 'skipped', reason };
}

/**
 * The chat a fire asks in: a new one titled "<name> · <date>", or the schedule's own (created once,
 * kept in the row). A new chat's id is derived from the fire, so a fire retried after a crash
 * between the chat's insert and the run's finds the chat it made instead of leaving it empty.
 * `createdForFire`: the chat exists for this fire only.
 */
async function targetChat(db: Database, schedule: Schedule, asker: Asker, fireId: string): Promise<{ sessionId: string; createdForFire: boolean }> {
  if (schedule.target === 'same-chat' && schedule.sessionId) {
    const [kept] = await db.select({ id: chatSessions.id }).from(chatSessions).where(and(eq(chatSessions.id, schedule.sessionId), eq(chatSessions.userId, schedule.userId)));
    if (kept) return { sessionId: kept.id, createdForFire: false };
  }
  if (schedule.target === 'new-chat') {
    const id = fireChatId(schedule.id, fireId);
    const [made] = await db.select({ id: chatSessions.id }).from(chatSessions).where(and(eq(chatSessions.id, id), eq(chatSessions.userId, schedule.userId)));
    if (made) return { sessionId: made.id, createdForFire: true };
    const session = await createChatSession(db, asker, { title: `${schedule.name} · ${fireDate(new Date(), schedule.timezone)}`, ...(schedule.agentId && { agentId: schedule.agentId }) }, id);
    return { sessionId: session.id, createdForFire: true };
  }
  const session = await createChatSession(db, asker, { title: schedule.name, ...(schedule.agentId && { agentId: schedule.agentId }) });
  // Two fires racing for the first chat: the first one stored wins, the other's chat is dropped.
  const [claimed] = await db
    .update(schedules)
    .set({ sessionId: session.id, updatedAt: sql`${schedules.updatedAt}` })
    .where(and(eq(schedules.id, schedule.id), schedule.sessionId ? eq(schedules.sessionId, schedule.sessionId) : isNull(schedules.sessionId)))
    .returning({ sessionId: schedules.sessionId });
  if (!claimed) {
    await db.delete(chatSessions).where(eq(chatSessions.id, session.id));
    const [winner] = await db.select({ sessionId: schedules.sessionId }).from(schedules).where(eq(schedules.id, schedule.id));
    if (winner?.sessionId) return { sessionId: winner.sessionId, createdForFire: false };
  }
  return { sessionId: session.id, createdForFire: false };
}

/** The id of the chat fire `fireId` of schedule `scheduleId` makes: an id's shape, unguessable as the schedule's id is. */
export function fireChatId(scheduleId: string, fireId: string): string {
  const digest = createHash('sha256').update(`${scheduleId}\n${fireId}`).digest();
  return `${ID_PREFIXES.chatSession}_${digest.readUIntBE(0, 5).toString(36)}_${digest.toString('hex', 5, 11)}`;
}

/** "2025-03-14 09:00" in the schedule's zone: a fire's chat title tells the fires apart. */
function fireDate(at: Date, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}
