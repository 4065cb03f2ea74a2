import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { preparedQuery } from '../db/prepared-query';
import { runs } from '../db/schema';
import { newId } from '../ids';
import type { ToolResult } from '../tools/define-tool-type';
import { NotFoundError } from './errors';
import { transitionRun } from './run-lifecycle';

export type Run = typeof runs.$inferSelect;

/**
 * A standalone tool execution as a run: queued until the tool-exec job (enqueued under the run's id)
 * picks it up. `toolName` picks one discovered tool of an expanding instance (MCP, OpenAPI).
 */
export async function createToolRun(db: Database, input: { userId: string; toolId: string; input: unknown; toolName?: string }): Promise<Run> {
  const id = newId('run');
  const [run] = await insertToolRun(db).execute({ id, userId: input.userId, toolId: input.toolId, options: toolRunOptions(input) });
  return run!;
}

const toolRunOptions = (input: { input: unknown; toolName?: string }) => ({ input: input.input, ...(input.toolName && { toolName: input.toolName }) });

// Prepared: drizzle builds an insert into this wide table column by column, ~0.3 ms per call.
const insertToolRun = preparedQuery((db) =>
  db
    .insert(runs)
    .values({ id: sql.placeholder('id'), kind: 'tool', userId: sql.placeholder('userId'), toolId: sql.placeholder('toolId'), options: sql.placeholder('options'), queueJobId: sql.placeholder('id') })
    .returning()
    .prepare('insert_tool_run'),
);

/**
 * A synchronous execution of a tool whose calls never have an effect (callsHaveNoEffect) is not
 * inserted by the API: its job carries the run as it would have been stored, and the worker writes
 * it once, together with its end and the call's log (executeTool's `draft`). The caller waits for
 * the result, so until then the run is only the job; a wait that times out stores the draft
 * (storeToolRunDraft) before answering with the run's URL.
 */
export type ToolRunDraft = { id: string; userId: string; toolId: string; options: Record<string, unknown>; createdAt: Date };

export function draftToolRun(input: { userId: string; toolId: string; input: unknown; toolName?: string }): ToolRunDraft {
  return { id: newId('run'), userId: input.userId, toolId: input.toolId, options: toolRunOptions(input), createdAt: new Date() };
}

/** Stores a draft as a queued run, unless its worker wrote it already; returns the run as stored. */
export async function storeToolRunDraft(db: Database, draft: ToolRunDraft): Promise<Run> {
  await db
    .insert(runs)
    .values({ id: draft.id, kind: 'tool', userId: draft.userId, toolId: draft.toolId, options: draft.options, queueJobId: draft.id, createdAt: draft.createdAt })
    .onConflictDoNothing({ target: runs.id });
  return getRun(db, draft.id);
}

const runById = preparedQuery((db) => db.select().from(runs).where(eq(runs.id, sql.placeholder('id'))).prepare('run_by_id'));

export async function getRun(db: Database, id: string): Promise<Run> {
  const [run] = await runById(db).execute({ id });
  if (!run) throw new NotFoundError('Run', id);
  return run;
}

/** Who may see a run: its owner, or any admin. */
export function mayViewRun(run: Pick<Run, 'userId'>, viewer: { id: string; role: string }): boolean {
  return run.userId === viewer.id || viewer.role === 'admin';
}

/** The run if this user may see it (mayViewRun); otherwise NotFound, never Forbidden. */
export async function getRunFor(db: Database, id: string, viewer: { id: string; role: string }): Promise<Run> {
  const run = await getRun(db, id);
  if (!mayViewRun(run, viewer)) throw new NotFoundError('Run', id);
  return run;
}

export async function setRunJobId(db: Database, runId: string, queueJobId: string): Promise<void> {
  await db.update(runs).set({ queueJobId }).where(eq(runs.id, runId));
}

/** Stores a standalone execution's result and ends its run. */
export async function finishToolRun(db: Database, runId: string, result: ToolResult): Promise<void> {
  const to = result.success ? 'succeeded' : 'failed';
  const fields = { result, error: result.success ? null : (result.error ?? 'failed') };
  const moved = await transitionRun(db, runId, to, fields);
  // Executed without being marked running first: the table only finishes a started run.
  if (!moved.ok && moved.reason === 'not-allowed' && moved.status === 'queued') {
    await transitionRun(db, runId, 'running');
    await transitionRun(db, runId, to, fields);
  }
}

/**
 * The API's view of a run: no checkpoint (model messages can be large and are internal), and no
 * custom instructions of its user in its options: admins read any run, those are the user's alone.
 */
export function toRunView(run: Run) {
  const { checkpoint: _checkpoint, ...view } = run;
  const { userInstructions: _userInstructions, ...options } = view.options;
  return { ...view, options };
}
