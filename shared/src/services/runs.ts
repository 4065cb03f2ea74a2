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
  const options = { input: input.input, ...(input.toolName && { toolName: input.toolName }) };
  const [run] = await insertToolRun(db).execute({ id, userId: input.userId, toolId: input.toolId, options });
  return run!;
}

// Prepared: drizzle builds an insert into this wide table column by column, ~0.3 ms per call.
const insertToolRun = preparedQuery((db) =>
  db
    .insert(runs)
    .values({ id: sql.placeholder('id'), kind: 'tool', userId: sql.placeholder('userId'), toolId: sql.placeholder('toolId'), options: sql.placeholder('options'), queueJobId: sql.placeholder('id') })
    .returning()
    .prepare('insert_tool_run'),
);

const runById = preparedQuery((db) => db.select().from(runs).where(eq(runs.id, sql.placeholder('id'))).prepare('run_by_id'));

export async function getRun(db: Database, id: string): Promise<Run> {
  const [run] = await runById(db).execute({ id });
  if (!run) throw new NotFoundError('Run', id);
  return run;
}

/** The run if this user may see it (its owner, or any admin); otherwise NotFound, never Forbidden. */
export async function getRunFor(db: Database, id: string, viewer: { id: string; role: string }): Promise<Run> {
  const run = await getRun(db, id);
  if (run.userId !== viewer.id && viewer.role !== 'admin') throw new NotFoundError('Run', id);
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

/** The API's view of a run: no checkpoint (model messages can be large and are internal). */
export function toRunView(run: Run) {
  const { checkpoint: _checkpoint, ...view } = run;
  return view;
}
