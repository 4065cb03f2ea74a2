import { agents, agentToolLogs, agentTools, approvals, llmModels, RUN_KINDS, RUN_STATUSES, runs, users, type Database } from '@agentq/shared/db';
import { toRunView } from '@agentq/shared/services';
import { and, asc, count, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { ApiError, notFound } from '../errors';

export const adminRunsQuerySchema = z.object({
  status: z.enum(RUN_STATUSES).optional(),
  kind: z.enum(RUN_KINDS).optional(),
  /** Part of the owner's email, or the owner's user id. */
  user: z.string().trim().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(25),
  /** The `nextCursor` of the previous page. */
  cursor: z.string().max(300).optional(),
});
export type AdminRunsQuery = z.infer<typeof adminRunsQuerySchema>;

/** Creation time in microseconds: PostgreSQL keeps µs, a JS Date only ms, and the cursor must not skip rows. */
const createdMicros = sql<string>`(extract(epoch from ${runs.createdAt}) * 1000000)::bigint`;

type Cursor = { micros: string; id: string };

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(value: string): Cursor {
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Cursor;
    if (typeof parsed.id === 'string' && /^\d+$/.test(parsed.micros)) return parsed;
  } catch {
    // fall through
  }
  throw new ApiError(400, 'validation_failed', 'Invalid cursor: pass the nextCursor of the previous page');
}

function tokensOf(usage: Record<string, unknown> | null): number | null {
  if (!usage) return null;
  const total = usage.totalTokens;
  if (typeof total === 'number') return total;
  const input = typeof usage.inputTokens === 'number' ? usage.inputTokens : 0;
  const output = typeof usage.outputTokens === 'number' ? usage.outputTokens : 0;
  return input + output || null;
}

const runColumns = {
  id: runs.id,
  kind: runs.kind,
  status: runs.status,
  userId: runs.userId,
  userEmail: users.email,
  agentId: runs.agentId,
  agentName: agents.name,
  modelName: llmModels.name,
  toolId: runs.toolId,
  toolName: agentTools.name,
  sessionId: runs.sessionId,
  steps: runs.steps,
  usage: runs.usage,
  finishReason: runs.finishReason,
  hitStepLimit: runs.hitStepLimit,
  error: runs.error,
  createdAt: runs.createdAt,
  startedAt: runs.startedAt,
  finishedAt: runs.finishedAt,
  micros: createdMicros,
};

/** A row of the operators' runs table: who, which agent, how long (end to end, queueing and approvals included), how many steps and tokens. */
function toRunRow(row: Omit<Awaited<ReturnType<typeof selectRuns>>[number], 'micros'>) {
  const end = row.finishedAt?.getTime() ?? Date.now();
  return {
    ...row,
    tokens: tokensOf(row.usage),
    durationMs: Math.max(0, end - row.createdAt.getTime()),
  };
}

function selectRuns(db: Database, where: SQL | undefined, limit: number) {
  return db
    .select(runColumns)
    .from(runs)
    .innerJoin(users, eq(users.id, runs.userId))
    .leftJoin(agents, eq(agents.id, runs.agentId))
    .leftJoin(llmModels, eq(llmModels.id, runs.modelId))
    .leftJoin(agentTools, eq(agentTools.id, runs.toolId))
    .where(where)
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit);
}

/** Every user's runs, newest first, filtered by status, kind and owner, keyset-paginated. */
export async function listAdminRuns(db: Database, query: AdminRunsQuery) {
  const filters: SQL[] = [];
  if (query.status) filters.push(eq(runs.status, query.status));
  if (query.kind) filters.push(eq(runs.kind, query.kind));
  if (query.user) filters.push(or(eq(runs.userId, query.user), ilike(users.email, `%${query.user.replace(/[\\%_]/g, (character) => `\\${character}`)}%`))!);
  const where = filters.length ? and(...filters) : undefined;
  let pageWhere = where;
  if (query.cursor) {
    const cursor = decodeCursor(query.cursor);
    pageWhere = and(where, sql`(${createdMicros} < ${cursor.micros}::bigint or (${createdMicros} = ${cursor.micros}::bigint and ${runs.id} < ${cursor.id}))`);
  }
  const rows = await selectRuns(db, pageWhere, query.limit + 1);
  const [totalRow] = await db.select({ value: count() }).from(runs).innerJoin(users, eq(users.id, runs.userId)).where(where);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map(({ micros: _micros, ...row }) => toRunRow(row)),
    total: totalRow?.value ?? 0,
    nextCursor: rows.length > query.limit && last ? encodeCursor({ micros: String(last.micros), id: last.id }) : null,
  };
}

/** One run for operators: the run, its step timeline, its tool executions and approvals. */
export async function adminRunDetail(db: Database, id: string) {
  const [row] = await selectRuns(db, eq(runs.id, id), 1);
  if (!row) throw notFound('Run');
  const [full] = await db.select().from(runs).where(eq(runs.id, id));
  const [toolLogs, runApprovals] = await Promise.all([
    db.select().from(agentToolLogs).where(eq(agentToolLogs.runId, id)).orderBy(asc(agentToolLogs.id)),
    db.select().from(approvals).where(eq(approvals.runId, id)).orderBy(asc(approvals.createdAt)),
  ]);
  const { micros: _micros, ...summary } = row;
  return {
    run: { ...toRunView(full!), ...toRunRow(summary) },
    timeline: full!.checkpoint?.timeline ?? null,
    toolLogs: toolLogs.map(({ result: _result, ...log }) => log),
    approvals: runApprovals.map((approval) => ({
      ...approval,
      // createdAt comes from the database clock and decidedAt from the API's: never report a negative wait.
      waitMs: approval.decidedAt ? Math.max(0, approval.decidedAt.getTime() - approval.createdAt.getTime()) : null,
    })),
  };
}
