/** Calendar fields of a wall-clock time, months 1-12. */
export type WallTime = {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
};

/** A wall time resolved to an instant, with what happened on a DST transition. */
export type ResolvedInstant = {
  epochMs: number;
  /** The wall time occurred twice (clocks went back); the earlier instant was chosen. */
  ambiguous: boolean;
  /** The wall time never occurred (clocks went forward); it was moved forward by the gap. */
  skipped: boolean;
};

/** A user-supplied date-time or time zone we cannot use; the message says what would work. */
export class DateTimeInputError extends Error {
  override readonly name = 'DateTimeInputError';
}

const DAY_MS = 86_400_000;
// ECMAScript's Date range: ±100,000,000 days around the epoch.
const MAX_EPOCH_MS = 8.64e15;

/**
 * Checks a time zone name with Intl and returns it with canonical capitalisation ("asia/tokyo"
 * → "Asia/Tokyo"), or throws DateTimeInputError naming valid examples. Aliases keep the
 * caller's spelling: V8 would turn "Asia/Kolkata" into the legacy "Asia/Calcutta".
 */
export function resolveTimeZone(timeZone: string): string {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    throw new DateTimeInputError(
      `Unknown time zone "${timeZone}". Use an IANA name such as "UTC", "Europe/Paris", "America/New_York" or "Asia/Tokyo".`,
    );
  }
  return resolved.toLowerCase() === timeZone.toLowerCase() ? resolved : timeZone;
}

/** The wall-clock fields an instant shows in a time zone (Intl, proleptic Gregorian, 24-hour). */
export function wallTimeAt(epochMs: number, timeZone: string): WallTime {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    calendar: 'gregory',
    numberingSystem: 'latn',
    hourCycle: 'h23',
    era: 'short',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(epochMs);
  const field = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  const era = parts.find((part) => part.type === 'era')?.value ?? 'AD';
  const year = era === 'BC' || era === 'B' ? 1 - field('year') : field('year');
  // Offsets are whole seconds, so the millisecond is the same in every zone.
  const millisecond = ((epochMs % 1000) + 1000) % 1000;
  return { year, month: field('month'), day: field('day'), hour: field('hour'), minute: field('minute'), second: field('second'), millisecond };
}

/** Milliseconds since the epoch of a wall time read as UTC; years 0-99 are taken literally. */
export function wallTimeToUtcMs(wall: WallTime): number {
  const date = new Date(0);
  date.setUTCFullYear(wall.year, wall.month - 1, wall.day);
  date.setUTCHours(wall.hour, wall.minute, wall.second, wall.millisecond);
  return date.getTime();
}

/** The inverse of wallTimeToUtcMs. */
export function utcMsToWallTime(utcMs: number): WallTime {
  const date = new Date(utcMs);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    millisecond: date.getUTCMilliseconds(),
  };
}

/** The zone's UTC offset at an instant, in milliseconds (east positive). */
export function offsetMsAt(epochMs: number, timeZone: string): number {
  return wallTimeToUtcMs(wallTimeAt(epochMs, timeZone)) - epochMs;
}

/**
 * Finds the instant a wall time denotes in a zone, resolving DST transitions the way
 * Temporal's "compatible" disambiguation (and every calendar app) does: a repeated time takes
 * the earlier instant, a skipped time moves forward by the length of the gap.
 */
export function wallTimeToInstant(wall: WallTime, timeZone: string): ResolvedInstant {
  const local = wallTimeToUtcMs(wall);
  // A day either side of the wall time brackets any transition, so these are the candidate offsets.
  const offsetBefore = offsetMsAt(local - DAY_MS, timeZone);
  const offsetAfter = offsetMsAt(local + DAY_MS, timeZone);
  const candidates = [...new Set([offsetBefore, offsetAfter])]
    .map((offset) => local - offset)
    .filter((epochMs) => wallTimeToUtcMs(wallTimeAt(epochMs, timeZone)) === local)
    .sort((a, b) => a - b);
  if (candidates.length > 0) {
    return { epochMs: candidates[0]!, ambiguous: candidates.length > 1, skipped: false };
  }
  // In a gap: interpreting the time with the offset in force before it lands past the gap.
  return { epochMs: local - offsetBefore, ambiguous: false, skipped: true };
}

/** "+05:30", "-04:00", "+00:00"; seconds only for historical local-mean-time offsets. */
export function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const totalSeconds = Math.abs(Math.round(offsetMs / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  return `${sign}${pad(hours)}:${pad(minutes)}${seconds ? `:${pad(seconds)}` : ''}`;
}

/** ISO 8601 with the zone's offset, e.g. "2024-03-10T03:30:00-04:00" (milliseconds only when non-zero). */
export function formatInZone(epochMs: number, timeZone: string): string {
  const wall = wallTimeAt(epochMs, timeZone);
  return `${formatWallTime(wall)}${formatOffset(offsetMsAt(epochMs, timeZone))}`;
}

/** "2024-03-10T03:30:00" (plus ".250" when there are milliseconds). */
export function formatWallTime(wall: WallTime): string {
  const year = wall.year >= 0 && wall.year <= 9999 ? String(wall.year).padStart(4, '0') : `${wall.year < 0 ? '-' : '+'}${String(Math.abs(wall.year)).padStart(6, '0')}`;
  const fraction = wall.millisecond ? `.${String(wall.millisecond).padStart(3, '0')}` : '';
  return `${year}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${fraction}`;
}

/** A sentence-style rendering for people, e.g. "Sunday, March 10, 2024 at 3:30:00 AM EDT". */
export function formatHuman(epochMs: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone, dateStyle: 'full', timeStyle: 'long' }).format(epochMs);
}

/** The English weekday name at an instant in a zone. */
export function weekdayAt(epochMs: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long' }).format(epochMs);
}

export type ParsedDateTime = {
  epochMs: number;
  /** True when the text carried its own offset ("Z", "+02:00"), so no zone was needed. */
  hadOffset: boolean;
  ambiguous: boolean;
  skipped: boolean;
};

const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Parses "now", an ISO 8601 date ("2024-03-10") or date-time ("2024-03-10T14:30",
 * "2024-03-10 14:30:05.250+01:00"). Text without an offset is a wall time in `timeZone`.
 * Deliberately strict: Date.parse guesses at anything and would hide mistakes.
 */
export function parseDateTime(text: string, timeZone: string, now: () => number = Date.now): ParsedDateTime {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === 'now') return { epochMs: now(), hadOffset: true, ambiguous: false, skipped: false };
  const match = ISO_PATTERN.exec(trimmed);
  if (!match) {
    throw new DateTimeInputError(
      `Cannot read "${text}" as a date-time. Use ISO 8601, e.g. "2024-03-10", "2024-03-10T14:30", "2024-03-10T14:30:00Z" or "2024-03-10T14:30:00+01:00", or "now".`,
    );
  }
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', offset] = match;
  const wall: WallTime = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
    millisecond: Number(fraction.padEnd(3, '0').slice(0, 3)),
  };
  if (wall.month < 1 || wall.month > 12 || wall.day < 1 || wall.day > daysInMonth(wall.year, wall.month)) {
    throw new DateTimeInputError(`"${text}" is not a real calendar date.`);
  }
  if (wall.hour > 23 || wall.minute > 59 || wall.second > 59) {
    throw new DateTimeInputError(`"${text}" has an invalid time of day (hours 00-23, minutes and seconds 00-59).`);
  }
  if (offset !== undefined) {
    return { epochMs: wallTimeToUtcMs(wall) - parseOffset(offset), hadOffset: true, ambiguous: false, skipped: false };
  }
  return { ...wallTimeToInstant(wall, timeZone), hadOffset: false };
}

function parseOffset(offset: string): number {
  if (offset.toUpperCase() === 'Z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4) || '0');
  if (hours > 23 || minutes > 59) throw new DateTimeInputError(`"${offset}" is not a valid UTC offset.`);
  return sign * (hours * 3_600_000 + minutes * 60_000);
}

/** Days in a Gregorian month (month 1-12). */
export function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

/** Throws when an instant is outside what Date (and Intl) can represent. */
export function assertInRange(epochMs: number): number {
  if (!Number.isFinite(epochMs) || Math.abs(epochMs) > MAX_EPOCH_MS) {
    throw new DateTimeInputError('The result is outside the supported date range (about 271,821 BCE to 275,760 CE).');
  }
  return epochMs;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
