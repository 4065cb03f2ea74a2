import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { columnPlaceholder, preparedQuery } from '../db/prepared-query';
import { runs, toolCalls, type RetryInterrupted, type RunStatus } from '../db/schema';
import type { ToolEffect, ToolResult } from '../tools/define-tool-type';

export type ToolCallEntry = typeof toolCalls.$inferSelect;

/** What the model and the user read for a non-idempotent call a crash interrupted. */
export const INTERRUPTED_ERROR = 'interrupted: the previous attempt may or may not have taken effect; check before trying again';

/** The abort reason a stopping worker gives running tools: the call is handed over, not cancelled. */
export class WorkerStoppingError extends Error {
  override name = 'WorkerStoppingError';
  constructor() {
    super('The worker is stopping; the run continues on another worker');
  }
}

/** The key a non-idempotent call carries on every attempt (HTTP Idempotency-Key). */
export function toolCallIdempotencyKey(runId: string, toolCallId: string): string {
  return `${runId}:${toolCallId}`;
}

export type BeginToolCall =
  /** Execute now (attempt counts from 1); `runStatus` is the run's status, read by the same statement (null: no such run). */
  | { kind: 'execute'; attempt: number; runStatus: RunStatus | null }
  /** Already completed: reuse the stored result, never run it again. */
  | { kind: 'completed'; result: ToolResult }
  /** A previous attempt may have taken effect and the call is non-idempotent: it completed as the interrupted error. */
  | { kind: 'interrupted'; result: ToolResult };

/** The run's status as of the statement, returned with the journal write: the cancel flag, read for free. */
const runStatusOf = (runId: string) => sql<RunStatus | null>`(select ${runs.status} from ${runs} where ${runs.id} = ${runId})`;

export type ToolCallToJournal = { runId: string; toolCallId: string; toolId: string | null; toolSlug: string; input: unknown; effect: ToolEffect };

/**
 * Journals a call before it runs. First attempt: a `started` row. A call a previous attempt left
 * `started`/`interrupted` runs again only when its effect is none/idempotent, or the tool re-sends
 * with the same Idempotency-Key; otherwise it completes as the interrupted error value.
 * `startedBefore`: the caller knows an earlier attempt started the call without journaling it (a
 * standalone run whose claim was its begin, see executeTool's `claimedAs`): no row means the same as a `started` one.
 */
export async function beginToolCall(db: Database, call: ToolCallToJournal & { retryInterrupted: RetryInterrupted; startedBefore?: boolean }): Promise<BeginToolCall> {
  const mayRepeat = (effect: ToolEffect) => effect !== 'non-idempotent' || call.retryInterrupted === 'with-idempotency-key';
  const [inserted] = await db
    .insert(toolCalls)
    .values({ runId: call.runId, toolCallId: call.toolCallId, toolId: call.toolId, toolSlug: call.toolSlug, input: call.input as object, effect: call.effect, state: 'started', attempt: call.startedBefore ? 2 : 1 })
    .onConflictDoNothing()
    .returning({ attempt: toolCalls.attempt, runStatus: runStatusOf(call.runId) });
  if (inserted && (!call.startedBefore || mayRepeat(call.effect))) return { kind: 'execute', attempt: inserted.attempt, runStatus: inserted.runStatus };
  if (inserted) return interrupted(db, call, inserted.attempt - 1);

  const [existing] = await db.select().from(toolCalls).where(and(eq(toolCalls.runId, call.runId), eq(toolCalls.toolCallId, call.toolCallId)));
  if (!existing) throw new Error(`tool call ${call.toolCallId} vanished from the journal`);
  if (existing.state === 'completed' && existing.result) return { kind: 'completed', result: existing.result as ToolResult };

  if (mayRepeat(existing.effect)) {
    const [again] = await db
      .update(toolCalls)
      .set({ state: 'started', attempt: sql`${toolCalls.attempt} + 1`, startedAt: new Date() })
      .where(and(eq(toolCalls.runId, call.runId), eq(toolCalls.toolCallId, call.toolCallId), inArray(toolCalls.state, ['started', 'interrupted'])))
      .returning({ attempt: toolCalls.attempt, runStatus: runStatusOf(call.runId) });
    if (again) return { kind: 'execute', attempt: again.attempt, runStatus: again.runStatus };
  }
  return interrupted(db, call, existing.attempt);
}

/** Completes a call an earlier attempt may have taken effect with as the interrupted error value. */
async function interrupted(db: Database, call: ToolCallToJournal, attempt: number): Promise<BeginToolCall> {
  const result: ToolResult = { success: false, error: INTERRUPTED_ERROR, metadata: { durationMs: 0, interrupted: true, attempt } };
  await completeToolCall(db, call.runId, call.toolCallId, result);
  return { kind: 'interrupted', result };
}

/** Stores a call's result; pass the transaction of the call's own writes to make them exactly-once. */
export async function completeToolCall(db: Database, runId: string, toolCallId: string, result: ToolResult): Promise<void> {
  await completeToolCallStatement(db).execute({ runId, toolCallId, result, completedAt: new Date() });
}

const completeToolCallStatement = preparedQuery((db) => toolCallCompletion(db).prepare('complete_tool_call'));

/**
 * completeToolCall's UPDATE, unprepared, to be run on its own or as a CTE of another statement.
 * Placeholders: runId, toolCallId, result, completedAt.
 */
export function toolCallCompletion(db: Database) {
  return db
    .update(toolCalls)
    .set({ state: 'completed', result: columnPlaceholder('result', toolCalls.result), completedAt: columnPlaceholder('completedAt', toolCalls.completedAt) })
    .where(and(eq(toolCalls.runId, sql.placeholder('runId')), eq(toolCalls.toolCallId, sql.placeholder('toolCallId'))));
}

/**
 * A call's journal entry written complete in one go, for a call whose begin was its run's claim
 * (executeTool's `claimedAs: 'first'`): inserts it, or completes the row a concurrent attempt wrote.
 * A CTE of the statement that logs the call. Placeholders: runId, toolCallId, toolId, toolSlug,
 * input, effect, result, completedAt.
 */
export function completedToolCallEntry(db: Database) {
  const placeholder = sql.placeholder;
  return db
    .insert(toolCalls)
    .values({
      runId: placeholder('runId'),
      toolCallId: placeholder('toolCallId'),
      toolId: placeholder('toolId'),
      toolSlug: placeholder('toolSlug'),
      input: placeholder('input'),
      effect: placeholder('effect'),
      state: 'completed',
      result: placeholder('result'),
      completedAt: placeholder('completedAt'),
    })
    .onConflictDoUpdate({ target: [toolCalls.runId, toolCalls.toolCallId], set: { state: 'completed', result: sql.raw('excluded.result'), completedAt: sql.raw('excluded.completed_at') } });
}

/** A stopping worker aborted the call: it did not complete here; the next attempt decides by its effect. */
export async function interruptToolCall(db: Database, runId: string, toolCallId: string): Promise<void> {
  await db
    .update(toolCalls)
    .set({ state: 'interrupted' })
    .where(and(eq(toolCalls.runId, runId), eq(toolCalls.toolCallId, toolCallId), eq(toolCalls.state, 'started')));
}

/** The run's journal, oldest first (the admin run view and resume use it). */
export async function toolCallsOfRun(db: Database, runId: string): Promise<ToolCallEntry[]> {
  return db.select().from(toolCalls).where(eq(toolCalls.runId, runId)).orderBy(toolCalls.startedAt);
}
