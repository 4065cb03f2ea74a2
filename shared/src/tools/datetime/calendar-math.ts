import {
  assertInRange,
  DateTimeInputError,
  daysInMonth,
  type ResolvedInstant,
  utcMsToWallTime,
  type WallTime,
  wallTimeAt,
  wallTimeToInstant,
  wallTimeToUtcMs,
} from './zoned-time';

export const TIME_UNITS = ['milliseconds', 'seconds', 'minutes', 'hours', 'days', 'weeks', 'months', 'years'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

const EXACT_UNIT_MS: Partial<Record<TimeUnit, number>> = { milliseconds: 1, seconds: 1_000, minutes: 60_000, hours: 3_600_000 };
const DAY_MS = 86_400_000;

/**
 * Adds an amount of a unit to an instant, as people mean it: hours and smaller are elapsed
 * time; days, weeks, months and years move the wall clock in `timeZone` (so "+1 day" across a
 * DST change keeps 09:00 at 09:00, and Jan 31 + 1 month is the last day of February).
 */
export function addToInstant(epochMs: number, amount: number, unit: TimeUnit, timeZone: string): ResolvedInstant {
  const exact = EXACT_UNIT_MS[unit];
  if (exact !== undefined) return { epochMs: assertInRange(epochMs + amount * exact), ambiguous: false, skipped: false };

  if ((unit === 'months' || unit === 'years') && !Number.isInteger(amount)) {
    throw new DateTimeInputError(`Months and years must be whole numbers (got ${amount}); use days or hours for fractions.`);
  }
  const wall = wallTimeAt(epochMs, timeZone);
  if (unit === 'months' || unit === 'years') {
    return wallTimeToInstant(addMonths(wall, unit === 'years' ? amount * 12 : amount), timeZone);
  }
  // Days and weeks: whole days on the calendar, any fraction as elapsed time (1.5 days = one calendar day + 12 h).
  const days = unit === 'weeks' ? amount * 7 : amount;
  const wholeDays = Math.trunc(days);
  const shifted = utcMsToWallTime(assertInRange(wallTimeToUtcMs(wall) + wholeDays * DAY_MS));
  const resolved = wallTimeToInstant(shifted, timeZone);
  return { ...resolved, epochMs: assertInRange(resolved.epochMs + Math.round((days - wholeDays) * DAY_MS)) };
}

/** Adds calendar months, clamping the day to the target month's length. */
export function addMonths(wall: WallTime, months: number): WallTime {
  const monthIndex = wall.year * 12 + (wall.month - 1) + months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12 + 1;
  return { ...wall, year, month, day: Math.min(wall.day, daysInMonth(year, month)) };
}

export type CalendarDuration = {
  years: number;
  months: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
  milliseconds: number;
};

export type Difference = {
  /** Exact elapsed time, negative when `to` is before `from`. */
  milliseconds: number;
  /** Calendar breakdown on the wall clock of `timeZone`, all parts carrying the same sign. */
  breakdown: CalendarDuration;
  /** The difference in one unit when asked for one (see differenceIn). */
  value?: number;
};

/**
 * The difference between two instants: exact elapsed milliseconds, plus a calendar breakdown
 * (years, months, days, then time) read on the wall clock of `timeZone`, so a calendar day
 * that is 23 hours long across a DST change still counts as one day.
 */
export function differenceBetween(fromMs: number, toMs: number, timeZone: string, unit?: TimeUnit): Difference {
  const sign = toMs < fromMs ? -1 : 1;
  const [start, end] = sign === 1 ? [fromMs, toMs] : [toMs, fromMs];
  const startWall = wallTimeAt(start, timeZone);
  const endLocal = wallTimeToUtcMs(wallTimeAt(end, timeZone));

  const months = wholeMonthsBetween(startWall, endLocal);
  let rest = endLocal - wallTimeToUtcMs(addMonths(startWall, months));
  const days = Math.floor(rest / DAY_MS);
  rest -= days * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1_000);
  rest -= seconds * 1_000;

  const signed = (value: number) => (value === 0 ? 0 : sign * value);
  const breakdown: CalendarDuration = {
    years: signed(Math.floor(months / 12)),
    months: signed(months % 12),
    days: signed(days),
    hours: signed(hours),
    minutes: signed(minutes),
    seconds: signed(seconds),
    milliseconds: signed(rest),
  };
  const result: Difference = { milliseconds: toMs - fromMs, breakdown };
  if (unit) result.value = differenceIn(unit, toMs - fromMs, signed(months), sign * (endLocal - wallTimeToUtcMs(startWall)));
  return result;
}

/**
 * One number for one unit: hours and smaller are exact elapsed time; days and weeks count the
 * wall clock (fractional, 6 decimals); months and years count whole calendar months and years.
 */
function differenceIn(unit: TimeUnit, elapsedMs: number, signedMonths: number, wallMs: number): number {
  const exact = EXACT_UNIT_MS[unit];
  if (exact !== undefined) return round(elapsedMs / exact);
  if (unit === 'days') return round(wallMs / DAY_MS);
  if (unit === 'weeks') return round(wallMs / (7 * DAY_MS));
  if (unit === 'months') return signedMonths;
  return Math.trunc(signedMonths / 12);
}

/** Whole calendar months from a wall time to a later local time, never overshooting. */
function wholeMonthsBetween(startWall: WallTime, endLocal: number): number {
  const endWall = utcMsToWallTime(endLocal);
  let months = (endWall.year - startWall.year) * 12 + (endWall.month - startWall.month);
  while (months > 0 && wallTimeToUtcMs(addMonths(startWall, months)) > endLocal) months -= 1;
  return months;
}

/** "1 year, 2 months, 3 days, 4 hours" (zero parts left out; "0 seconds" when equal). */
export function describeDuration(duration: CalendarDuration): string {
  const parts = (Object.entries(duration) as Array<[keyof CalendarDuration, number]>)
    .filter(([, value]) => value !== 0)
    .map(([name, value]) => `${Math.abs(value)} ${Math.abs(value) === 1 ? name.slice(0, -1) : name}`);
  if (parts.length === 0) return '0 seconds';
  const negative = Object.values(duration).some((value) => value < 0);
  return `${negative ? 'minus ' : ''}${parts.join(', ')}`;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
