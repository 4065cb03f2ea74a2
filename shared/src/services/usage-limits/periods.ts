import type { UsagePeriod } from '../../api-types/usage-limits';

/** A period of the UTC calendar: [start, end) and the id its spend counter is kept under. */
export type PeriodWindow = { period: UsagePeriod; start: Date; end: Date; id: string };

/**
 * The UTC day or month that `at` falls in. UTC for everyone: a limit is a budget the operator sets
 * for all users, and one calendar means one counter per user and period whatever zone they are in.
 */
export function periodWindow(period: UsagePeriod, at: Date): PeriodWindow {
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  if (period === 'day') {
    const day = at.getUTCDate();
    return { period, start: new Date(Date.UTC(year, month, day)), end: new Date(Date.UTC(year, month, day + 1)), id: at.toISOString().slice(0, 10) };
  }
  return { period, start: new Date(Date.UTC(year, month, 1)), end: new Date(Date.UTC(year, month + 1, 1)), id: at.toISOString().slice(0, 7) };
}
