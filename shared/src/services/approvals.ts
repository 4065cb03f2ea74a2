import { createHash } from 'node:crypto';
import { alias, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { and, asc, count, desc, eq, exists, getTableColumns, gt, inArray, isNotNull, lte, ne, notExists, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { columnPlaceholder, preparedQuery } from '../db/prepared-query';
import { agentTools, approvalGrants, approvals, APPROVAL_STATUSES, auditEvents, runs, users } from '../db/schema';
import { newId } from '../ids';
import { getToolType } from '../tools/registry';
import { ConflictError, InvalidInputError, NotFoundError } from './errors';
import type { Run } from './runs';

export type Approval = typeof approvals.$inferSelect;
/**
 * An approval as lists show it: with the chat session of its run (null for a standalone execution),
 * for "Open chat"; for an admin viewer also who asked and who decided, by name (email when unnamed;
 * null for other viewers, who see only their own).
 */
export type ListedApproval = Approval & { sessionId: string | null; userName: string | null; decidedByName: string | null };
type Viewer = { id: string; role: string };

/** JSON with object keys sorted at every level: equal inputs hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What an approval is for: exactly this tool with exactly this input. */
export function approvalInputHash(toolName: string, input: unknown): string {
  return createHash('sha256').update(`${toolName}\n${canonicalJson(input)}`).digest('hex');
}

/** Records a pending approval; idempotent per (run, tool call) so a retried step reuses it. */
export async function createApproval(
  db: Database,
  input: { runId: string; userId: string; toolCallId: string; toolId: string | null; toolName: string; input: unknown; expiresAt: Date },
): Promise<Approval> {
  const [created] = await db
    .insert(approvals)
    .values({ id: newId('approval'), ...input, input: input.input ?? {}, inputHash: approvalInputHash(input.toolName, input.input) })
    .onConflictDoNothing()
    .returning();
  if (created) return created;
  const [existing] = await db.select().from(approvals).where(and(eq(approvals.runId, input.runId), eq(approvals.toolCallId, input.toolCallId)));
  return existing!;
}

export const approvalQuerySchema = z.object({
  /** One status, or `decided`: every status but pending. */
  status: z.enum([...APPROVAL_STATUSES, 'decided']).optional(),
  runId: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(500),
});

const owners = alias(users, 'owner');
const deciders = alias(users, 'decider');

/** A user's name as lists show it, their email when the name is blank (null without a user). */
function displayName(user: { name: AnyPgColumn; email: AnyPgColumn }): SQL<string | null> {
  return sql<string | null>`coalesce(nullif(${user.name}, ''), ${user.email})`;
}

/**
 * A user's approvals (an admin sees everyone's), at most `limit`, and how many match in all. Pending
 * ones by the time they have left (the first to expire first, so a cap leaves out those with the most
 * time), decided ones by their decision, newest first; any other list newest first.
 */
export async function listApprovals(db: Database, viewer: Viewer, query: z.input<typeof approvalQuerySchema>): Promise<{ items: ListedApproval[]; total: number }> {
  const { status, runId, limit } = approvalQuerySchema.parse(query);
  await expireDueApprovals(db, viewer.role === 'admin' ? {} : { userId: viewer.id });
  const filters: SQL[] = [];
  if (viewer.role !== 'admin') filters.push(eq(approvals.userId, viewer.id));
  if (status === 'decided') filters.push(ne(approvals.status, 'pending'));
  else if (status) filters.push(eq(approvals.status, status));
  if (runId) filters.push(eq(approvals.runId, runId));
  const order = {
    pending: [asc(approvals.expiresAt), asc(approvals.id)],
    decided: [desc(sql`coalesce(${approvals.decidedAt}, ${approvals.createdAt})`), desc(approvals.id)],
    any: [desc(approvals.createdAt), desc(approvals.id)],
  }[status === 'pending' || status === 'decided' ? status : 'any'];
  const where = and(...filters);
  const admin = viewer.role === 'admin';
  const [items, [counted]] = await Promise.all([
    db
      .select({
        ...getTableColumns(approvals),
        sessionId: runs.sessionId,
        userName: admin ? displayName(owners) : sql<null>`null`,
        decidedByName: admin ? displayName(deciders) : sql<null>`null`,
      })
      .from(approvals)
      .leftJoin(runs, eq(runs.id, approvals.runId))
      .leftJoin(owners, eq(owners.id, approvals.userId))
      .leftJoin(deciders, eq(deciders.id, approvals.decidedBy))
      .where(where)
      .orderBy(...order)
      .limit(limit),
    db.select({ total: count() }).from(approvals).where(where),
  ]);
  return { items, total: counted?.total ?? items.length };
}

export async function getApprovalFor(db: Database, id: string, viewer: Viewer): Promise<Approval> {
  await expireDueApprovals(db, { id });
  const [approval] = await db.select().from(approvals).where(eq(approvals.id, id));
  if (!approval || (approval.userId !== viewer.id && viewer.role !== 'admin')) throw new NotFoundError('Approval', id);
  return approval;
}

export async function approvalsForRun(db: Database, runId: string): Promise<Approval[]> {
  return db.select().from(approvals).where(eq(approvals.runId, runId)).orderBy(asc(approvals.createdAt));
}

export const decideApprovalInputSchema = z.object({
  decision: z.enum(['approve', 'deny']),
  /** Told to the model when denying; kept for the audit either way. */
  reason: z.string().trim().max(2000).optional(),
  /** Approve with this input instead of the model's (validated against the tool's input schema). */
  input: z.unknown().optional(),
  /** "session" (or true): later calls of this tool in the same chat session run without asking. */
  remember: z.union([z.literal('session'), z.boolean()]).optional(),
});
export type DecideApprovalInput = z.infer<typeof decideApprovalInputSchema>;

/** The same decision by the same person as the stored one: a retry, answered with the stored state. */
function isRepeatOf(approval: Approval, viewer: Viewer, decision: DecideApprovalInput): boolean {
  const status = decision.decision === 'approve' ? 'approved' : 'denied';
  return approval.status === status && approval.decidedBy === viewer.id;
}

/** A run as waking its parked job needs it. */
export type RunToWake = Pick<Run, 'id' | 'kind' | 'queueJobId'>;

/**
 * Moves a pending approval to approved/denied exactly once, committed to PostgreSQL before anything
 * else happens, audits who decided what and when, and grants "remember for this session" when asked.
 * Repeating the stored decision (a client retry after a lost answer) returns the stored approval;
 * a different decision, or one after expiry, is a ConflictError. Returns the run to wake with it.
 */
export async function decideApproval(db: Database, id: string, viewer: Viewer, decision: DecideApprovalInput): Promise<{ approval: Approval; run: RunToWake }> {
  let editedInput: unknown = null;
  if (decision.decision === 'approve' && decision.input !== undefined) {
    // An edit is checked against the tool's input schema first, which needs the approval's tool.
    const approval = await getApprovalFor(db, id, viewer);
    if (approval.status !== 'pending') return storedDecision(db, approval, viewer, decision);
    editedInput = await validEditedInput(db, approval, decision.input);
  }
  const now = new Date();
  // One statement: the decision (only while pending, unexpired and the viewer's), its audit line and grant.
  const [decided] = await decideStatement(db).execute({
    id,
    status: decision.decision === 'approve' ? 'approved' : 'denied',
    reason: decision.reason ?? null,
    editedInput,
    remember: decision.decision === 'approve' && (decision.remember === 'session' || decision.remember === true),
    viewerId: viewer.id,
    isAdmin: viewer.role === 'admin',
    now,
  });
  if (decided) {
    const { approval } = decided;
    return { approval, run: { id: approval.runId, kind: decided.runKind, queueJobId: decided.runQueueJobId } };
  }
  // Not decided here: missing or someone else's (404), expired (recorded now), or decided before.
  return storedDecision(db, await getApprovalFor(db, id, viewer), viewer, decision);
}

/** An approval this request did not decide: the stored decision when it repeats it, else a conflict. */
async function storedDecision(db: Database, approval: Approval, viewer: Viewer, decision: DecideApprovalInput): Promise<{ approval: Approval; run: RunToWake }> {
  if (approval.status === 'pending' || !isRepeatOf(approval, viewer, decision)) {
    throw new ConflictError(`Approval ${approval.id} was already ${approval.status === 'pending' ? 'being decided' : approval.status}`, { status: approval.status });
  }
  const [run] = await db.select({ id: runs.id, kind: runs.kind, queueJobId: runs.queueJobId }).from(runs).where(eq(runs.id, approval.runId));
  if (!run) throw new NotFoundError('Approval', approval.id);
  return { approval, run };
}

/** The approver's edited input, validated (unknown keys dropped, defaults filled in) by the tool's input schema. */
async function validEditedInput(db: Database, approval: Approval, input: unknown): Promise<unknown> {
  const [tool] = approval.toolId ? await db.select().from(agentTools).where(eq(agentTools.id, approval.toolId)) : [];
  if (!tool) throw new InvalidInputError('The tool no longer exists; its input cannot be edited');
  const parsed = (getToolType(tool.type).inputSchema as z.ZodType).safeParse(input);
  if (!parsed.success) {
    throw new InvalidInputError(
      'The edited input does not match the tool input schema',
      parsed.error.issues.map((issue) => ({ path: ['input', ...issue.path], message: issue.message })),
    );
  }
  return parsed.data;
}

/**
 * decideApproval's statement: the UPDATE (pending, not expired at `now`, the viewer's unless admin)
 * as a data-modifying CTE, the audit line and the session grant inserted from its row, and the row
 * returned with its run's kind and job. No row: nothing was decided (and nothing written).
 */
const decideStatement = preparedQuery((db) => {
  const placeholder = sql.placeholder;
  const decided = db.$with('decided').as(
    db
      .update(approvals)
      .set({
        status: columnPlaceholder('status', approvals.status),
        reason: columnPlaceholder('reason', approvals.reason),
        // SQL NULL when not edited: the JSON encoder would store a JSON null.
        editedInput: sql`nullif(${columnPlaceholder('editedInput', approvals.editedInput)}, 'null'::jsonb)`,
        remember: columnPlaceholder('remember', approvals.remember),
        decidedBy: columnPlaceholder('viewerId', approvals.decidedBy),
        decidedAt: columnPlaceholder('now', approvals.decidedAt),
      })
      .where(
        and(
          eq(approvals.id, placeholder('id')),
          eq(approvals.status, 'pending'),
          gt(approvals.expiresAt, columnPlaceholder('now', approvals.expiresAt)),
          or(eq(approvals.userId, placeholder('viewerId')), sql`${placeholder('isAdmin')}::boolean`),
        ),
      )
      .returning(),
  );
  // As SQL: drizzle's insert … select wants every column, the identity too, which no insert may name.
  const audited = db.$with('audited', { id: sql<number>`id` }).as(
    sql`insert into ${auditEvents} (actor_user_id, action, target_type, target_id, details)
      select ${decided.decidedBy}, 'approval.' || ${decided.status}, 'approval', ${decided.id},
        jsonb_build_object('runId', ${decided.runId}, 'toolName', ${decided.toolName}, 'reason', ${decided.reason}, 'edited', ${decided.editedInput} is not null, 'remember', ${decided.remember})
      from ${decided} returning id`,
  );
  // Every column in table order: drizzle's rule for insert … select.
  const granted = db.$with('granted').as(
    db
      .insert(approvalGrants)
      .select(
        db
          .select({
            sessionId: sql<string>`${runs.sessionId}`.as('session_id'),
            toolName: decided.toolName,
            grantedBy: sql<string>`${decided.decidedBy}`.as('granted_by'),
            createdAt: sql<Date>`now()`.as('created_at'),
          })
          .from(decided)
          .innerJoin(runs, eq(runs.id, decided.runId))
          .where(and(eq(decided.remember, true), isNotNull(runs.sessionId))),
      )
      .onConflictDoNothing()
      .returning({ sessionId: approvalGrants.sessionId }),
  );
  // The decided row's own columns (nested, so they stay apart from the run's).
  const columns = getTableColumns(approvals);
  const approval = Object.fromEntries(Object.keys(columns).map((key) => [key, decided[key as keyof typeof columns]])) as { [K in keyof typeof columns]: (typeof decided)[K] };
  return db
    .with(decided, audited, granted)
    .select({ approval, runKind: runs.kind, runQueueJobId: runs.queueJobId })
    .from(decided)
    .innerJoin(runs, eq(runs.id, decided.runId))
    .prepare('decide_approval');
});

/** Pending approvals of a run whose time is up become "expired" (counted as denied); returns how many. */
export async function expireApprovals(db: Database, runId: string, now = new Date()): Promise<number> {
  return (await expireDueApprovals(db, { runId }, now)).length;
}

/**
 * Marks every pending approval whose time is up as "expired" (optionally only one approval, run or
 * user's), with an audit line each. Reads call it first and the API sweeps with it, so the inbox is
 * right even when no worker runs; the run's worker sees the same rows when it wakes.
 */
export async function expireDueApprovals(
  db: Database,
  scope: { id?: string; runId?: string; userId?: string } = {},
  now = new Date(),
): Promise<{ id: string; runId: string }[]> {
  const filters: SQL[] = [eq(approvals.status, 'pending'), lte(approvals.expiresAt, now)];
  if (scope.id) filters.push(eq(approvals.id, scope.id));
  if (scope.runId) filters.push(eq(approvals.runId, scope.runId));
  if (scope.userId) filters.push(eq(approvals.userId, scope.userId));
  const expired = await db
    .update(approvals)
    .set({ status: 'expired', reason: 'expired', decidedAt: now })
    .where(and(...filters))
    .returning({ id: approvals.id, runId: approvals.runId });
  if (expired.length > 0) {
    await db
      .insert(auditEvents)
      .values(expired.map((row) => ({ actorUserId: null, action: 'approval.expired', targetType: 'approval', targetId: row.id, details: { runId: row.runId } })));
  }
  return expired;
}

/**
 * Parked runs that should be running again: waiting for approval with none left pending (all
 * decided or expired), or cancelled while parked (their job must wake to close the stream). The
 * API wakes these at once; this catches the ones it could not (Redis was down).
 */
export async function runsReadyToWake(db: Database): Promise<RunToWake[]> {
  const pendingOfRun = db
    .select({ id: approvals.id })
    .from(approvals)
    .where(and(eq(approvals.runId, runs.id), eq(approvals.status, 'pending')));
  const decided = db
    .select({ id: runs.id, kind: runs.kind, queueJobId: runs.queueJobId })
    .from(runs)
    .where(and(eq(runs.status, 'awaiting_approval'), notExists(pendingOfRun)));
  const cancelled = db
    .select({ id: runs.id, kind: runs.kind, queueJobId: runs.queueJobId })
    .from(runs)
    .where(and(inArray(runs.status, ['cancelled']), exists(pendingOfRun)));
  return [...(await decided), ...(await cancelled)];
}

/** Ends every pending approval of a run that will not continue (cancelled). */
export async function closeApprovalsOfRun(db: Database, runId: string, reason: string): Promise<void> {
  await db
    .update(approvals)
    .set({ status: 'expired', reason, decidedAt: new Date() })
    .where(and(eq(approvals.runId, runId), eq(approvals.status, 'pending')));
}

const grantsOfSession = preparedQuery((db) =>
  db.select({ toolName: approvalGrants.toolName }).from(approvalGrants).where(eq(approvalGrants.sessionId, sql.placeholder('sessionId'))).prepare('grants_of_session'),
);

/** Tool names the user allowed for the whole session ("remember for this session"). */
export async function sessionGrants(db: Database, sessionId: string): Promise<Set<string>> {
  const rows = await grantsOfSession(db).execute({ sessionId });
  return new Set(rows.map((row) => row.toolName));
}

/** Pending approvals per user, for the navigation badge. */
export async function countPendingApprovals(db: Database, viewer: Viewer): Promise<number> {
  await expireDueApprovals(db, viewer.role === 'admin' ? {} : { userId: viewer.id });
  const rows = await db
    .select({ id: approvals.id })
    .from(approvals)
    .where(and(eq(approvals.status, 'pending'), viewer.role === 'admin' ? undefined : eq(approvals.userId, viewer.id)));
  return rows.length;
}

