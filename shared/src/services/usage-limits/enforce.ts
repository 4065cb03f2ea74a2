import { USAGE_PERIODS, type UsageLimitStatus } from '../../api-types/usage-limits';
import { periodWindow } from './periods';
import { readSpend, type SpendDeps } from './spend';
import { limitsFor, usageLimitSettings } from './settings';

export type UsageGuardDeps = SpendDeps & {
  /** The clock (tests move it across a period's end). */
  now?: () => Date;
};

/** Who is sending: limits depend on the user and on whether they are an admin. */
export type UsageSubject = { id: string; isAdmin?: boolean };

const PERIOD_WORDS = { day: 'today', month: 'this month' } as const;

/** A send refused because the user's spend reached a limit (the API answers 429 with `status`). */
export class UsageLimitReachedError extends Error {
  constructor(readonly status: UsageLimitStatus) {
    super(`You have used ${status.spent} of your ${status.limit} tokens ${PERIOD_WORDS[status.period]}; you can send again after ${status.resetsAt}`);
    this.name = 'UsageLimitReachedError';
  }
}

/**
 * The limits that hold for the user, each with its period's spend; empty when none does. Without a
 * limit this reads only the cached settings (no statement, no Redis call once cached); with one,
 * one MGET (plus a rebuild of a counter Redis lost).
 */
export async function usageLimitStatus(deps: UsageGuardDeps, user: UsageSubject): Promise<UsageLimitStatus[]> {
  const limits = limitsFor(await usageLimitSettings(deps.db), user);
  const periods = USAGE_PERIODS.filter((period) => limits[period] !== undefined);
  if (periods.length === 0) return [];
  const now = deps.now?.() ?? new Date();
  const windows = periods.map((period) => periodWindow(period, now));
  const spent = await readSpend(deps, user.id, windows, now);
  return windows.map((window, index) => ({ period: window.period, limit: limits[window.period]!, spent: spent[index]!, resetsAt: window.end.toISOString() }));
}

/**
 * Refuses a new chat run (UsageLimitReachedError) when the user's spend has reached a limit. A run
 * already going is not stopped: it may take its user past the limit by its own tokens.
 */
export async function assertWithinUsageLimit(deps: UsageGuardDeps, user: UsageSubject): Promise<void> {
  const reached = (await usageLimitStatus(deps, user)).filter((status) => status.spent >= status.limit);
  // The one that holds the longest (on the month's last day both end together: the month's): sending again waits for it.
  const longest = reached.sort((a, b) => b.resetsAt.localeCompare(a.resetsAt) || (a.period === 'month' ? -1 : 1))[0];
  if (longest) throw new UsageLimitReachedError(longest);
}
