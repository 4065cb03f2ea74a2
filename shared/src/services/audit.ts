import { and, desc, eq, gte, like, lt, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { AUDIT_CATEGORIES, type AuditCategory } from '../api-types/audit';
import type { Database } from '../db/client';
import { auditEvents, users } from '../db/schema';

/**
 * The audit log: who did what, when. Decisions on approvals, user and token management, sign-ins,
 * the admins' changes to models, agents and tools, chats shared by link and webhook endpoints each leave a row (the
 * services that make the change write it beside it where they can; the routes record the rest).
 * Details name what changed, never a value of a secret (an API key is "apiKey" in `fields`).
 */


export type AuditEntry = {
  actorUserId: string | null;
  /** `<category>.<verb>`, e.g. `model.update`. */
  action: `${AuditCategory}.${string}`;
  targetType: string;
  targetId: string;
  details?: Record<string, unknown>;
};

export async function recordAudit(db: Database, entry: AuditEntry): Promise<void> {
  await db.insert(auditEvents).values({ ...entry, details: entry.details ?? null });
}

/** The names of the fields an update changed (its validated input's keys), for `details.fields`. */
export function changedFields(input: Record<string, unknown>): string[] {
  return Object.keys(input).filter((key) => input[key] !== undefined);
}

const when = (bound: string) => z.iso.datetime({ offset: true, message: `Give a date and time such as 2026-12-01T00:00:00Z (${bound})` }).optional();

export const auditQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** The `nextCursor` of the previous page. */
    cursor: z.string().regex(/^\d{1,18}$/, 'Expected the nextCursor of an earlier page').optional(),
    /** A category (`model`: every `model.*` action) or one action (`model.update`). */
    action: z
      .string()
      .regex(/^[a-z-]+(\.[a-z-]+)?$/, 'Give a category such as "model" or an action such as "model.update"')
      .refine((action) => (AUDIT_CATEGORIES as readonly string[]).includes(action.split('.')[0]!), { message: `Categories: ${AUDIT_CATEGORIES.join(', ')}` })
      .optional(),
    actorUserId: z.string().min(1).max(100).optional(),
    targetId: z.string().min(1).max(320).optional(),
    /** Inclusive start and exclusive end, ISO 8601 with an offset. */
    since: when('since'),
    until: when('until'),
  })
  .refine((query) => !query.since || !query.until || new Date(query.since) < new Date(query.until), { message: 'The start (since) must be before the end (until)', path: ['until'] });
export type AuditQuery = z.input<typeof auditQuerySchema>;

/** The log, newest first, a page at a time, each row with the actor's email and name (null: the system, or a sign-in nobody matched). */
export async function listAuditEvents(db: Database, query: AuditQuery = {}) {
  const { limit, cursor, action, actorUserId, targetId, since, until } = auditQuerySchema.parse(query);
  const filters: (SQL | undefined)[] = [
    cursor ? lt(auditEvents.id, Number(cursor)) : undefined,
    action ? (action.includes('.') ? eq(auditEvents.action, action) : like(auditEvents.action, `${action}.%`)) : undefined,
    actorUserId ? eq(auditEvents.actorUserId, actorUserId) : undefined,
    targetId ? eq(auditEvents.targetId, targetId) : undefined,
    since ? gte(auditEvents.createdAt, new Date(since)) : undefined,
    until ? lt(auditEvents.createdAt, new Date(until)) : undefined,
  ];
  const rows = await db
    .select({
      id: auditEvents.id,
      at: auditEvents.createdAt,
      action: auditEvents.action,
      targetType: auditEvents.targetType,
      targetId: auditEvents.targetId,
      details: auditEvents.details,
      actorUserId: auditEvents.actorUserId,
      actorEmail: users.email,
      actorName: users.name,
    })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorUserId))
    .where(and(...filters))
    .orderBy(desc(auditEvents.id))
    .limit(limit + 1);
  const items = rows.slice(0, limit).map(({ actorUserId: id, actorEmail, actorName, ...row }) => ({
    ...row,
    id: String(row.id),
    // A deleted user's rows keep their id: the log still says who it was by id.
    actor: id ? { id, email: actorEmail, name: actorName } : null,
  }));
  return { items, nextCursor: rows.length > limit ? items.at(-1)!.id : null };
}
