import { z } from 'zod';
import { defineToolType } from '../define-tool-type';
import { parseToolCall } from '../parse-tool-call';
import { addToInstant, describeDuration, differenceBetween, TIME_UNITS } from './calendar-math';
import { datetimeTextZh } from './zh';
import {
  DateTimeInputError,
  formatHuman,
  formatInZone,
  formatOffset,
  formatWallTime,
  offsetMsAt,
  parseDateTime,
  type ParsedDateTime,
  resolveTimeZone,
  wallTimeAt,
  weekdayAt,
} from './zoned-time';

const timeZoneField = (what: string) =>
  z.string().min(1).describe(`${what}: an IANA time zone such as "UTC", "Europe/Paris" or "America/New_York".`);
const dateTimeField = (what: string) =>
  z
    .string()
    .min(1)
    .describe(
      `${what}: ISO 8601 ("2024-03-10", "2024-03-10T14:30", "2024-03-10T14:30:00Z", "2024-03-10T14:30:00+01:00") or "now". Without an offset it is a wall time in the time zone.`,
    );
const unitField = z.enum(TIME_UNITS);

const datetimeConfigSchema = z.object({
  defaultTimezone: z
    .string()
    .default('UTC')
    .describe('IANA time zone used when a call names none, e.g. "Europe/Berlin".'),
});

const datetimeInputSchema = z.discriminatedUnion('action', [
  z
    .object({
      action: z.literal('now'),
      timezone: timeZoneField('Zone to show the current time in (default: the tool default)').optional(),
    })
    .describe('The current date and time.'),
  z
    .object({
      action: z.literal('convert'),
      datetime: dateTimeField('The date-time to convert'),
      toTimezone: timeZoneField('Zone to convert to'),
      fromTimezone: timeZoneField('Zone the date-time is written in, when it has no offset (default: the tool default)').optional(),
    })
    .describe('Convert a date-time to another time zone.'),
  z
    .object({
      action: z.literal('difference'),
      from: dateTimeField('Start'),
      to: dateTimeField('End'),
      unit: unitField
        .optional()
        .describe('Also give the difference in this unit: hours and smaller are exact, days and weeks follow the calendar, months and years are whole.'),
      timezone: timeZoneField('Zone for date-times without an offset and for counting calendar days').optional(),
    })
    .describe('Time between two date-times, exact and as years/months/days/hours.'),
  z
    .object({
      action: z.literal('add'),
      datetime: dateTimeField('The starting date-time'),
      amount: z.number().describe('How many units to add; negative to subtract. Months and years must be whole.'),
      unit: unitField.describe('Hours and smaller add elapsed time; days and larger move the calendar (DST-safe).'),
      timezone: timeZoneField('Zone to read and show the date-time in').optional(),
    })
    .describe('Add or subtract an amount of time.'),
]);

type DatetimeInput = z.output<typeof datetimeInputSchema>;

/** The same instant, described for the model in one zone. */
function describeInstant(epochMs: number, timeZone: string) {
  return {
    iso: formatInZone(epochMs, timeZone),
    utc: new Date(epochMs).toISOString(),
    timezone: timeZone,
    offset: formatOffset(offsetMsAt(epochMs, timeZone)),
    weekday: weekdayAt(epochMs, timeZone),
    human: formatHuman(epochMs, timeZone),
    epochMs,
  };
}

/** Explains how a wall time on a DST transition was read, so the model can tell the user. */
function transitionNote(text: string, parsed: ParsedDateTime, timeZone: string): string | undefined {
  if (parsed.skipped) {
    const shown = formatWallTime(wallTimeAt(parsed.epochMs, timeZone));
    return `${text} does not exist in ${timeZone} (clocks go forward); read as ${shown}.`;
  }
  if (parsed.ambiguous) return `${text} happens twice in ${timeZone} (clocks go back); the earlier one was used.`;
  return undefined;
}

function run(input: DatetimeInput, defaultTimeZone: string) {
  switch (input.action) {
    case 'now': {
      const timeZone = resolveTimeZone(input.timezone ?? defaultTimeZone);
      return { action: input.action, ...describeInstant(Date.now(), timeZone) };
    }
    case 'convert': {
      const fromZone = resolveTimeZone(input.fromTimezone ?? defaultTimeZone);
      const toZone = resolveTimeZone(input.toTimezone);
      const parsed = parseDateTime(input.datetime, fromZone);
      const note = transitionNote(input.datetime, parsed, fromZone);
      return {
        action: input.action,
        input: input.datetime,
        fromTimezone: parsed.hadOffset ? null : fromZone,
        ...describeInstant(parsed.epochMs, toZone),
        ...(note && { note }),
      };
    }
    case 'difference': {
      const timeZone = resolveTimeZone(input.timezone ?? defaultTimeZone);
      const from = parseDateTime(input.from, timeZone);
      const to = parseDateTime(input.to, timeZone);
      const difference = differenceBetween(from.epochMs, to.epochMs, timeZone, input.unit);
      const notes = [transitionNote(input.from, from, timeZone), transitionNote(input.to, to, timeZone)].filter(Boolean);
      return {
        action: input.action,
        from: formatInZone(from.epochMs, timeZone),
        to: formatInZone(to.epochMs, timeZone),
        timezone: timeZone,
        milliseconds: difference.milliseconds,
        breakdown: difference.breakdown,
        description: describeDuration(difference.breakdown),
        ...(input.unit && { unit: input.unit, value: difference.value }),
        ...(notes.length > 0 && { note: notes.join(' ') }),
      };
    }
    case 'add': {
      const timeZone = resolveTimeZone(input.timezone ?? defaultTimeZone);
      const start = parseDateTime(input.datetime, timeZone);
      const result = addToInstant(start.epochMs, input.amount, input.unit, timeZone);
      const landedNote = result.skipped
        ? `The result fell in a DST gap in ${timeZone} and was moved forward.`
        : result.ambiguous
          ? `The result's wall time happens twice in ${timeZone}; the earlier one was used.`
          : undefined;
      const notes = [transitionNote(input.datetime, start, timeZone), landedNote].filter(Boolean);
      return {
        action: input.action,
        start: formatInZone(start.epochMs, timeZone),
        amount: input.amount,
        unit: input.unit,
        ...describeInstant(result.epochMs, timeZone),
        ...(notes.length > 0 && { note: notes.join(' ') }),
      };
    }
  }
}

/**
 * `datetime`: current time, time-zone conversion, differences and date arithmetic, using only
 * Intl's time-zone data (DST-aware; wall times on a transition resolve like Temporal's
 * "compatible" mode).
 */
export const datetimeToolType = defineToolType({
  type: 'datetime',
  label: 'Date and time',
  summary: 'Tells the current time and converts, compares and shifts dates across time zones.',
  translations: { zh: datetimeTextZh },
  configSchema: datetimeConfigSchema,
  inputSchema: datetimeInputSchema,
  describe: (config) =>
    'Work with dates and times. Actions: "now" (current time), "convert" (to another time zone), ' +
    '"difference" (time between two date-times) and "add" (shift by an amount of a unit). ' +
    `Use ISO 8601 date-times; ones without an offset are read in ${config.defaultTimezone} unless a time zone is given. ` +
    'Use this rather than guessing today\'s date or doing calendar arithmetic yourself.',
  effect: { possible: ['none'], summary: 'Reads the clock and calendar: no effect outside the call.' },
  execute: async (input, config) => {
    const started = performance.now();
    const metadata = () => ({ durationMs: Math.round(performance.now() - started) });
    const parsed = parseToolCall({ input: datetimeInputSchema, config: datetimeConfigSchema }, { input, config, durationMs: () => metadata().durationMs });
    if (!parsed.ok) return parsed.result;
    try {
      return { success: true, data: run(parsed.input, parsed.config.defaultTimezone), metadata: metadata() };
    } catch (error) {
      if (error instanceof DateTimeInputError) return { success: false, error: error.message, metadata: metadata() };
      // Intl throws RangeError at the edges of its range; that is still the caller's input.
      if (error instanceof RangeError) return { success: false, error: `Date out of range: ${error.message}`, metadata: metadata() };
      // Pure computation: retrying cannot help, so even a bug is reported to the model, not thrown.
      return { success: false, error: `Unexpected datetime error: ${error instanceof Error ? error.message : String(error)}`, metadata: metadata() };
    }
  },
});
