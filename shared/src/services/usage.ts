import { and, count, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { llmModels, runs, users } from '../db/schema';
import { InvalidInputError } from './errors';

/**
 * Tokens spent by chat runs, as the runs stored them (`runs.usage`, summed over the run's steps):
 * by day, by model and by user, summed in PostgreSQL. Every chat run counts, whatever its outcome:
 * a failed or stopped run spent what it reported. Costs are what each run's model's prices made of
 * its tokens when it ended (runs.cost), so a price change leaves earlier runs as they were.
 */

/** How far back the report reaches when no start is given, and the longest window it takes. */
export const USAGE_DEFAULT_DAYS = 30;
export const USAGE_MAX_DAYS = 366;
const DAY_MS = 24 * 60 * 60 * 1000;

// IANA names only ("Europe/Berlin", "UTC"): PostgreSQL reads an offset such as "+05:00" as POSIX,
// west of Greenwich, the opposite of what the caller meant.
const TIME_ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** The zone's name as `Intl` spells it, or undefined when it knows no such zone. */
function canonicalTimeZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * `since` (inclusive) and `until` (exclusive), ISO 8601 with an offset: the last 30 days up to now
 * when absent, at most 366 days. `tz` (IANA, default UTC) is the calendar the days are counted in.
 */
export const usageQuerySchema = z
  .object({
    since: z.iso.datetime({ offset: true, message: 'Give a date and time such as 2026-12-01T00:00:00Z' }).optional(),
    until: z.iso.datetime({ offset: true, message: 'Give a date and time such as 2026-12-08T00:00:00Z' }).optional(),
    tz: z
      .string()
      .max(64)
      .regex(TIME_ZONE_NAME, 'Give an IANA time zone such as Europe/Berlin')
      .refine((name) => canonicalTimeZone(name) !== undefined, 'Unknown time zone: give an IANA time zone such as Europe/Berlin')
      .optional(),
  })
  .transform(({ since, until, tz }) => {
    const end = until ? new Date(until) : new Date();
    return { since: since ? new Date(since) : new Date(end.getTime() - USAGE_DEFAULT_DAYS * DAY_MS), until: end, tz: tz ? canonicalTimeZone(tz)! : 'UTC' };
  })
  .superRefine(({ since, until }, context) => {
    if (since >= until) context.addIssue({ code: 'custom', message: 'The start (since) must be before the end (until)', path: ['until'] });
    else if (until.getTime() - since.getTime() > USAGE_MAX_DAYS * DAY_MS) context.addIssue({ code: 'custom', message: `Ask for at most ${USAGE_MAX_DAYS} days at a time`, path: ['since'] });
  });
export type UsageQuery = z.input<typeof usageQuerySchema>;
/** A checked window: what `usageQuerySchema` makes of a query. */
export type UsageWindow = z.output<typeof usageQuerySchema>;

const TOKEN_KEYS = ['inputTokens', 'outputTokens', 'reasoningTokens'] as const;

/** One run's count of `key`; 0 when the run reported none (or something that is not a number). */
function tokensOf(key: (typeof TOKEN_KEYS)[number] | 'totalTokens'): SQL {
  const field = sql.raw(`'${key}'`);
  return sql`case when jsonb_typeof(${runs.usage} -> ${field}) = 'number' then (${runs.usage} ->> ${field})::numeric else 0 end`;
}

const sumOf = (perRun: SQL) => sql<number>`coalesce(sum(${perRun}), 0)::bigint`.mapWith(Number);

// A run that reported no total spent what went in and came out (reasoning is part of the output).
const totalOfRun = sql`case when jsonb_typeof(${runs.usage} -> 'totalTokens') = 'number' then ${tokensOf('totalTokens')} else ${tokensOf('inputTokens')} + ${tokensOf('outputTokens')} end`;

/** What every group (and the totals) reports. */
const sums = {
  runs: count(),
  inputTokens: sumOf(tokensOf('inputTokens')),
  outputTokens: sumOf(tokensOf('outputTokens')),
  reasoningTokens: sumOf(tokensOf('reasoningTokens')),
  totalTokens: sumOf(totalOfRun),
  // US dollars, at the prices each run's model had when it ended; null when no run was priced.
  cost: sql<string | null>`sum(${runs.cost})`.mapWith((sum: string | null): number | null => (sum === null ? null : Number(sum))),
};
export type UsageSums = { runs: number; inputTokens: number; outputTokens: number; reasoningTokens: number; totalTokens: number; cost: number | null };

/** Chat runs created in the window, of one user or of everyone. */
function chatRunsIn({ since, until }: UsageWindow, userId: string | undefined): SQL {
  return and(eq(runs.kind, 'chat'), userId ? eq(runs.userId, userId) : undefined, gte(runs.createdAt, since), lt(runs.createdAt, until))!;
}

async function totalsOf(db: Database, scope: SQL): Promise<UsageSums> {
  const [totals] = await db.select(sums).from(runs).where(scope);
  return totals!;
}

/** Days (`YYYY-MM-DD` in the window's time zone) with runs, oldest first; days without runs are left out. */
async function byDay(db: Database, window: UsageWindow, scope: SQL) {
  try {
    return await db
      .select({ day: sql<string>`to_char(${runs.createdAt} at time zone ${window.tz}, 'YYYY-MM-DD')`, ...sums })
      .from(runs)
      .where(scope)
      // By position: the zone is a parameter, and a second copy of it would be another expression to PostgreSQL.
      .groupBy(sql`1`)
      .orderBy(sql`1`);
  } catch (error) {
    // A zone Node knows but this PostgreSQL's time zone data does not (invalid_parameter_value).
    const code = (error as { code?: string; cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
    if (code === '22023') throw new InvalidInputError(`Unknown time zone '${window.tz}'`, [{ path: ['tz'], message: 'This server does not know that time zone' }]);
    throw error;
  }
}

/** Models by tokens spent, the most first; a deleted model keeps its id, without a name. */
function byModel(db: Database, scope: SQL) {
  return db
    .select({ modelId: runs.modelId, modelName: llmModels.name, ...sums })
    .from(runs)
    .leftJoin(llmModels, eq(llmModels.id, runs.modelId))
    .where(scope)
    .groupBy(runs.modelId, llmModels.name)
    .orderBy(desc(sums.totalTokens), runs.modelId);
}

function byUser(db: Database, scope: SQL) {
  return db
    .select({ userId: runs.userId, userName: users.name, userEmail: users.email, ...sums })
    .from(runs)
    .innerJoin(users, eq(users.id, runs.userId))
    .where(scope)
    .groupBy(runs.userId, users.name, users.email)
    .orderBy(desc(sums.totalTokens), users.email);
}

const windowOf = ({ since, until, tz }: UsageWindow) => ({ since: since.toISOString(), until: until.toISOString(), tz });

/** One user's own tokens in the window: totals, by day and by model. */
export async function userUsageReport(db: Database, userId: string, window: UsageWindow) {
  const scope = chatRunsIn(window, userId);
  const [totals, days, models] = await Promise.all([totalsOf(db, scope), byDay(db, window, scope), byModel(db, scope)]);
  return { ...windowOf(window), totals, byDay: days, byModel: models };
}

/** Everyone's tokens in the window (admins): totals, by day, by model and by user, the most first. */
export async function usageReport(db: Database, window: UsageWindow) {
  const scope = chatRunsIn(window, undefined);
  const [totals, days, models, people] = await Promise.all([totalsOf(db, scope), byDay(db, window, scope), byModel(db, scope), byUser(db, scope)]);
  return { ...windowOf(window), totals, byDay: days, byModel: models, byUser: people };
}

/** One user's total chat tokens in [since, until), as the report counts them (usage limits rebuild their counters with it). */
export async function userChatTokens(db: Database, userId: string, since: Date, until: Date): Promise<number> {
  const [row] = await db.select({ totalTokens: sums.totalTokens }).from(runs).where(chatRunsIn({ since, until, tz: 'UTC' }, userId));
  return row?.totalTokens ?? 0;
}
