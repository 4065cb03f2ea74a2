import { and, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { columnPlaceholder, preparedQuery } from '../db/prepared-query';
import { runs, type RunStatus } from '../db/schema';
import { isDependencyDown, NotFoundError } from './errors';

type Run = typeof runs.$inferSelect;

/**
 * Every status a run may move to from each status: the only place run status transitions are
 * decided. The API (enqueue failure, cancel), the worker (start, park, finish) and the reconciler
 * all go through `transitionRun`, whose UPDATE only matches a run in an allowed source status, so
 * two writers racing (a cancel and a finishing worker) can never both win.
 */
export const RUN_TRANSITIONS = {
  queued: ['running', 'failed', 'cancelled'],
  // running → running: a retried or resumed job picks the run up again.
  running: ['running', 'awaiting_approval', 'succeeded', 'failed', 'cancelled'],
  awaiting_approval: ['running', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  // cancelled → cancelled: the worker settles a run the API cancelled (partial answer, steps, usage).
  cancelled: ['cancelled'],
} as const satisfies Record<RunStatus, readonly RunStatus[]>;

export const TERMINAL_RUN_STATUSES = ['succeeded', 'failed', 'cancelled'] as const satisfies readonly RunStatus[];
export type TerminalRunStatus = (typeof TERMINAL_RUN_STATUSES)[number];

export function isTerminal(status: RunStatus): boolean {
  return (TERMINAL_RUN_STATUSES as readonly RunStatus[]).includes(status);
}

/** Whether the table allows `from → to`. */
export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return (RUN_TRANSITIONS[from] as readonly RunStatus[]).includes(to);
}

/** The statuses a run may be in for a move to `to`. */
export function sourcesOf(to: RunStatus): RunStatus[] {
  return (Object.keys(RUN_TRANSITIONS) as RunStatus[]).filter((from) => canTransition(from, to));
}

/** What a transition may write besides the status (outcome, progress). */
export type RunTransitionFields = Partial<Pick<Run, 'finishReason' | 'error' | 'hitStepLimit' | 'steps' | 'usage' | 'checkpoint' | 'result' | 'queueJobId'>>;

export type RunTransition = { ok: true; run: Run } | { ok: false; reason: 'not-found' } | { ok: false; reason: 'not-allowed'; status: RunStatus };

/**
 * Moves a run to `to` when the table allows it from its current status, in one conditional UPDATE
 * (pass a transaction as `db` to commit it with other writes). Sets startedAt on the first start
 * and finishedAt on a terminal status. Refusals are values: the caller decides what they mean.
 * @example
 * const moved = await transitionRun(db, runId, 'cancelled', { finishReason: 'cancelled' });
 * if (!moved.ok && moved.reason === 'not-allowed') // already finished: 409
 */
export async function transitionRun(db: Database, runId: string, to: RunStatus, fields: RunTransitionFields = {}): Promise<RunTransition> {
  const terminal = isTerminal(to);
  // Every job starts with the plain claim (→ running, nothing else written): that one is prepared.
  const [run] = to === 'running' && Object.keys(fields).length === 0
    ? (await claimStatement(db).execute({ runId })).map(({ firstStart: _firstStart, ...claimed }) => claimed)
    : await db
    .update(runs)
    .set({
      ...fields,
      ...(terminal && fields.error !== undefined ? { error: fields.error === null ? null : toRunErrorText(fields.error) } : {}),
      status: to,
      ...(to === 'running' ? { startedAt: sql`coalesce(${runs.startedAt}, now())` } : {}),
      ...(terminal ? { finishedAt: new Date() } : {}),
    })
    .where(and(eq(runs.id, runId), inArray(runs.status, sourcesOf(to))))
    .returning();
  if (run) return { ok: true, run };
  const [current] = await db.select({ status: runs.status }).from(runs).where(eq(runs.id, runId));
  return current ? { ok: false, reason: 'not-allowed', status: current.status } : { ok: false, reason: 'not-found' };
}

/**
 * The claim's UPDATE (placeholder `runId`), for statements to add their RETURNING to: the run's
 * columns and `firstStart` (claimReturning), and whatever else a caller reads with it.
 */
export function claimUpdate(db: Database) {
  return (
    db
      .update(runs)
      // updatedAt explicitly: its $onUpdate default would be computed once, when the statement is built.
      .set({ status: 'running', startedAt: sql`coalesce(${runs.startedAt}, now())`, updatedAt: sql`now()` })
      .where(and(eq(runs.id, sql.placeholder('runId')), inArray(runs.status, sourcesOf('running'))))
  );
}

/**
 * What a claim returns: the run, and whether this is its first start. started_at is only ever set
 * by a claim, to its transaction's now(): equal to now() means no earlier claim started this run
 * (durable in PostgreSQL, unlike the job's own attempt count).
 */
export const claimReturning = () => ({ ...getTableColumns(runs), firstStart: sql<boolean>`${runs.startedAt} = now()` });

const claimStatement = preparedQuery((db) => claimUpdate(db).returning(claimReturning()).prepare('claim_run'));

/**
 * A standalone tool run's end as a statement to embed (a data-modifying CTE of the statement that
 * logs the call): `to` with its result, only when the table allows the move, as transitionRun would
 * write it. The caller reads whether it matched. Placeholders: runId, result, and runError (failed:
 * the error through toRunErrorText).
 */
export function toolRunSettlement(db: Database, to: 'succeeded' | 'failed', options: { unclaimed?: boolean } = {}) {
  return db
    .update(runs)
    .set({
      status: to,
      result: columnPlaceholder('result', runs.result),
      error: to === 'succeeded' ? null : columnPlaceholder('runError', runs.error),
      // An unclaimed run (see sourcesThrough) starts and ends here.
      ...(options.unclaimed && { startedAt: sql`coalesce(${runs.startedAt}, now())` }),
      finishedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(runs.id, sql.placeholder('runId')), inArray(runs.status, options.unclaimed ? sourcesThrough('running', to) : sourcesOf(to))));
}

/**
 * toolRunSettlement for a draft run (runs.ts, ToolRunDraft): the run is inserted already ended, or,
 * when it was stored meanwhile (a timed-out wait), ended as an unclaimed run is. Placeholders as
 * toolRunSettlement's, and the draft's userId, toolId, runOptions and runCreatedAt.
 */
export function draftToolRunSettlement(db: Database, to: 'succeeded' | 'failed') {
  const error = to === 'succeeded' ? null : sql.placeholder('runError');
  return db
    .insert(runs)
    .values({
      id: sql.placeholder('runId'),
      kind: 'tool',
      userId: sql.placeholder('userId'),
      toolId: sql.placeholder('toolId'),
      options: sql.placeholder('runOptions'),
      queueJobId: sql.placeholder('runId'),
      status: to,
      result: sql.placeholder('result'),
      error,
      startedAt: sql`now()`,
      finishedAt: sql`now()`,
      createdAt: sql.placeholder('runCreatedAt'),
      updatedAt: sql`now()`,
    })
    .onConflictDoUpdate({
      target: runs.id,
      set: { status: to, result: sql.raw('excluded.result'), error: sql.raw('excluded.error'), startedAt: sql`coalesce(${runs.startedAt}, now())`, finishedAt: sql`now()`, updatedAt: sql`now()` },
      setWhere: inArray(runs.status, sourcesThrough('running', to)),
    });
}

/**
 * The statuses a run may be in for the two moves `→ through → to` made at once: the end of a run
 * that ran without its own claim (a standalone call with no effect), as the table allows it.
 */
export function sourcesThrough(through: RunStatus, to: RunStatus): RunStatus[] {
  const direct = sourcesOf(to);
  const via = canTransition(through, to) ? sourcesOf(through) : [];
  return (Object.keys(RUN_TRANSITIONS) as RunStatus[]).filter((from) => direct.includes(from) || via.includes(from));
}

/**
 * What every job does first: moves its run to `running` and returns the row in one statement, or,
 * when the table will not start it (it ended), returns it as it is. NotFound when there is no such run.
 */
export async function claimRun(db: Database, runId: string): Promise<{ run: Run; claimed: boolean; firstStart: boolean }> {
  const [row] = await claimStatement(db).execute({ runId });
  if (row) {
    const { firstStart, ...run } = row;
    return { run, claimed: true, firstStart };
  }
  return unclaimedRun(db, runId);
}

/** What a claim that matched no row answers: the run as it is (it ended), or NotFound. */
export async function unclaimedRun(db: Database, runId: string): Promise<{ run: Run; claimed: false; firstStart: false }> {
  const [run] = await db.select().from(runs).where(eq(runs.id, runId));
  if (!run) throw new NotFoundError('Run', runId);
  return { run, claimed: false, firstStart: false };
}

/** queued/awaiting_approval/running → running; false when the run already ended (e.g. cancelled). */
export async function markRunRunning(db: Database, runId: string, fields: RunTransitionFields = {}): Promise<boolean> {
  return (await transitionRun(db, runId, 'running', fields)).ok;
}

/** The database cancel flag: whether the run was cancelled (checked by a running worker at step and tool boundaries). */
export async function isRunCancelled(db: Database, runId: string): Promise<boolean> {
  const [row] = await db.select({ status: runs.status }).from(runs).where(eq(runs.id, runId));
  return row?.status === 'cancelled';
}

/**
 * The text stored on a run or shown to a user for an error: never SQL or its parameters (drizzle's
 * "Failed query: … params: …" and PostgreSQL's own fields stay in the logs).
 */
export function toRunErrorText(error: unknown): string {
  if (isDependencyDown(error)) return 'A service the run needs (database or queue) was unavailable; try again shortly';
  let current: unknown = error;
  // drizzle wraps the driver's error in a message that quotes the query: report the cause instead.
  while (current instanceof Error && /^Failed query: /.test(current.message) && current.cause) current = current.cause;
  const text = current instanceof Error ? current.message : String(current);
  if (/^Failed query: /.test(text) || /\b(select|insert|update|delete)\b[\s\S]*\b(from|into|set)\b[\s\S]*\$\d/i.test(text)) return 'The run hit a database error';
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
