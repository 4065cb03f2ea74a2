import { and, eq, inArray } from 'drizzle-orm';
import { USAGE_PERIODS, type UsageLimitDefaults, type UsageLimitOverrideValue, type UsagePeriod, type UserUsageLimits } from '../../api-types/usage-limits';
import type { Database } from '../../db/client';
import { usageLimitDefaults, userUsageLimits, users } from '../../db/schema';
import { cachedConfig, invalidateConfig } from '../config-cache';
import { NotFoundError } from '../errors';

/** Per period: a number of tokens, or null for unlimited (an override only; absent: no override). */
type Overrides = Partial<Record<UsagePeriod, number | null>>;

/** Every limit setting at once: what each send decides from (cached per process, scope `usage-limits`). */
export type UsageLimitSettings = {
  defaults: Partial<Record<UsagePeriod, number>>;
  overrides: Record<string, Overrides>;
};

async function loadSettings(db: Database): Promise<UsageLimitSettings> {
  const [defaultRows, overrideRows] = await Promise.all([db.select().from(usageLimitDefaults), db.select().from(userUsageLimits)]);
  const settings: UsageLimitSettings = { defaults: {}, overrides: {} };
  for (const row of defaultRows) settings.defaults[row.period] = row.tokens;
  for (const row of overrideRows) (settings.overrides[row.userId] ??= {})[row.period] = row.tokens;
  return settings;
}

/** The settings, from this process's config cache when one is attached (no statement once loaded). */
export function usageLimitSettings(db: Database): Promise<UsageLimitSettings> {
  return cachedConfig(db, 'usage-limits', () => loadSettings(db));
}

/** Whether any limit is set at all: without one, nobody's spend needs counting. */
export function anyUsageLimit(settings: UsageLimitSettings): boolean {
  return Object.keys(settings.defaults).length > 0 || Object.values(settings.overrides).some((periods) => Object.values(periods).some((tokens) => tokens !== null));
}

/**
 * The limits that hold for a user, per period: their override when they have one (a number, or
 * none for 'unlimited'), else the default, which admins are not held to.
 */
export function limitsFor(settings: UsageLimitSettings, user: { id: string; isAdmin?: boolean }): Partial<Record<UsagePeriod, number>> {
  const overrides = settings.overrides[user.id];
  const limits: Partial<Record<UsagePeriod, number>> = {};
  for (const period of USAGE_PERIODS) {
    const tokens = overrides && period in overrides ? overrides[period] : user.isAdmin ? undefined : settings.defaults[period];
    if (typeof tokens === 'number') limits[period] = tokens;
  }
  return limits;
}

const perKey = { day: 'perDay', month: 'perMonth' } as const;

export async function getUsageLimitDefaults(db: Database): Promise<UsageLimitDefaults> {
  const rows = await db.select().from(usageLimitDefaults);
  const byPeriod = Object.fromEntries(rows.map((row) => [row.period, row.tokens]));
  return { perDay: byPeriod.day ?? null, perMonth: byPeriod.month ?? null };
}

/** Replaces the default limits (null: none for that period); every process drops its copy. */
export async function setUsageLimitDefaults(db: Database, input: UsageLimitDefaults): Promise<UsageLimitDefaults> {
  await db.transaction(async (tx) => {
    for (const period of USAGE_PERIODS) {
      const tokens = input[perKey[period]];
      if (tokens === null) await tx.delete(usageLimitDefaults).where(eq(usageLimitDefaults.period, period));
      else await tx.insert(usageLimitDefaults).values({ period, tokens }).onConflictDoUpdate({ target: usageLimitDefaults.period, set: { tokens, updatedAt: new Date() } });
    }
  });
  await invalidateConfig(db, ['usage-limits']);
  return getUsageLimitDefaults(db);
}

async function requireUser(db: Database, userId: string): Promise<void> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
  if (!user) throw new NotFoundError('User', userId);
}

/** A user's override per period: tokens, 'unlimited', or 'default' (no override). */
export async function getUserUsageLimits(db: Database, userId: string): Promise<UserUsageLimits> {
  await requireUser(db, userId);
  const rows = await db.select().from(userUsageLimits).where(eq(userUsageLimits.userId, userId));
  return overridesView(rows);
}

function overridesView(rows: { period: UsagePeriod; tokens: number | null }[]): UserUsageLimits {
  const value = (period: UsagePeriod): UsageLimitOverrideValue => {
    const row = rows.find((candidate) => candidate.period === period);
    return !row ? 'default' : (row.tokens ?? 'unlimited');
  };
  return { perDay: value('day'), perMonth: value('month') };
}

/** Every user's overrides (users without one are left out), for the admin's user list. */
export async function listUserUsageLimits(db: Database): Promise<({ userId: string } & UserUsageLimits)[]> {
  const rows = await db.select().from(userUsageLimits);
  const byUser = new Map<string, typeof rows>();
  for (const row of rows) byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), row]);
  return [...byUser].map(([userId, userRows]) => ({ userId, ...overridesView(userRows) }));
}

/** Replaces a user's override; every process drops its copy. */
export async function setUserUsageLimits(db: Database, userId: string, input: UserUsageLimits): Promise<UserUsageLimits> {
  await requireUser(db, userId);
  await db.transaction(async (tx) => {
    const cleared = USAGE_PERIODS.filter((period) => input[perKey[period]] === 'default');
    if (cleared.length) await tx.delete(userUsageLimits).where(and(eq(userUsageLimits.userId, userId), inArray(userUsageLimits.period, cleared)));
    for (const period of USAGE_PERIODS) {
      const value = input[perKey[period]];
      if (value === 'default') continue;
      const tokens = value === 'unlimited' ? null : value;
      await tx.insert(userUsageLimits).values({ userId, period, tokens }).onConflictDoUpdate({ target: [userUsageLimits.userId, userUsageLimits.period], set: { tokens, updatedAt: new Date() } });
    }
  });
  await invalidateConfig(db, ['usage-limits']);
  return getUserUsageLimits(db, userId);
}
