import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolContext, ToolResult } from '../define-tool-type';
import { datetimeToolType } from './index';
import { parseDateTime, wallTimeToInstant } from './zoned-time';

const context: ToolContext = {
  userId: null,
  runId: null,
  sessionId: null,
  toolCallId: null,
  signal: new AbortController().signal,
  allowPrivateNetworks: false,
  services: {},
};

function run(input: z.input<typeof datetimeToolType.inputSchema>, defaultTimezone?: string): Promise<ToolResult> {
  const config = datetimeToolType.configSchema.parse(defaultTimezone === undefined ? {} : { defaultTimezone });
  return datetimeToolType.execute(input as never, config, context);
}

async function data(input: z.input<typeof datetimeToolType.inputSchema>, defaultTimezone?: string) {
  const result = await run(input, defaultTimezone);
  if (!result.success) throw new Error(result.error);
  return result.data as Record<string, unknown>;
}

describe('datetime tool: contract', () => {
  it('has defaults and JSON Schemas', () => {
    expect(datetimeToolType.configSchema.parse({})).toEqual({ defaultTimezone: 'UTC' });
    expect(z.toJSONSchema(datetimeToolType.configSchema, { io: 'input' })).toMatchObject({ type: 'object' });
    const inputJson = JSON.stringify(z.toJSONSchema(datetimeToolType.inputSchema));
    for (const action of ['now', 'convert', 'difference', 'add']) expect(inputJson).toContain(`"const":"${action}"`);
    expect(datetimeToolType.describe({ defaultTimezone: 'Europe/Paris' })).toContain('Europe/Paris');
  });

  it('returns invalid input as an error value', async () => {
    const result = await run({ action: 'teleport' } as never);
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/Invalid input/) });
    expect(result.metadata.durationMs).toBeTypeOf('number');
  });
});

describe('datetime tool: now', () => {
  it('gives the current time in the default zone', async () => {
    const before = Date.now();
    const now = await data({ action: 'now' });
    expect(now).toMatchObject({ action: 'now', timezone: 'UTC', offset: '+00:00' });
    expect(Number(now.epochMs)).toBeGreaterThanOrEqual(before);
    expect(Number(now.epochMs) - before).toBeLessThan(5_000);
    expect(new Date(String(now.iso)).getTime()).toBe(now.epochMs);
  });

  it('gives the current time in a named zone, including half- and quarter-hour offsets', async () => {
    expect(await data({ action: 'now', timezone: 'Asia/Tokyo' })).toMatchObject({ timezone: 'Asia/Tokyo', offset: '+09:00' });
    expect(await data({ action: 'now', timezone: 'Asia/Kathmandu' })).toMatchObject({ offset: '+05:45' });
    expect(await data({ action: 'now' }, 'Asia/Kolkata')).toMatchObject({ timezone: 'Asia/Kolkata', offset: '+05:30' });
  });

  it('refuses an unknown zone with a clear message', async () => {
    const result = await run({ action: 'now', timezone: 'Mars/Olympus_Mons' });
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/Unknown time zone "Mars\/Olympus_Mons"\. Use an IANA name/) });
    const badDefault = await run({ action: 'now' }, 'Nowhere/Land');
    expect(badDefault).toMatchObject({ success: false, error: expect.stringMatching(/Unknown time zone "Nowhere\/Land"/) });
  });
});

describe('datetime tool: convert', () => {
  it.each([
    ['2024-03-10T12:00:00Z', undefined, 'America/New_York', '2024-03-10T08:00:00-04:00'],
    ['2024-01-15T12:00:00Z', undefined, 'America/New_York', '2024-01-15T07:00:00-05:00'],
    ['2024-01-15T09:00', 'Europe/Paris', 'Asia/Tokyo', '2024-01-15T17:00:00+09:00'],
    ['2024-07-15T09:00', 'Europe/Paris', 'UTC', '2024-07-15T07:00:00+00:00'],
    ['2024-06-01 12:00', 'Asia/Kolkata', 'UTC', '2024-06-01T06:30:00+00:00'],
    ['2024-06-01T12:00:00.250+02:00', 'Asia/Tokyo', 'UTC', '2024-06-01T10:00:00.250+00:00'],
    ['2024-06-01', undefined, 'Australia/Sydney', '2024-06-01T10:00:00+10:00'],
  ])('%s from %s to %s → %s', async (datetime, fromTimezone, toTimezone, iso) => {
    const converted = await data({ action: 'convert', datetime, toTimezone, ...(fromTimezone && { fromTimezone }) });
    expect(converted).toMatchObject({ action: 'convert', iso, timezone: toTimezone });
  });

  it('reports whether the input needed a source zone', async () => {
    expect(await data({ action: 'convert', datetime: '2024-06-01T12:00Z', toTimezone: 'UTC', fromTimezone: 'Asia/Tokyo' })).toMatchObject({
      fromTimezone: null,
    });
    expect(await data({ action: 'convert', datetime: '2024-06-01T12:00', toTimezone: 'UTC', fromTimezone: 'asia/tokyo' })).toMatchObject({
      fromTimezone: 'Asia/Tokyo',
      iso: '2024-06-01T03:00:00+00:00',
    });
  });

  it('moves a wall time in a DST gap forward and says so', async () => {
    const converted = await data({ action: 'convert', datetime: '2024-03-10T02:30', fromTimezone: 'America/New_York', toTimezone: 'UTC' });
    expect(converted).toMatchObject({ iso: '2024-03-10T07:30:00+00:00', note: expect.stringMatching(/does not exist .* read as 2024-03-10T03:30:00/) });
  });

  it('takes the earlier of a repeated wall time and says so', async () => {
    const newYork = await data({ action: 'convert', datetime: '2024-11-03T01:30', fromTimezone: 'America/New_York', toTimezone: 'UTC' });
    expect(newYork).toMatchObject({ iso: '2024-11-03T05:30:00+00:00', note: expect.stringMatching(/happens twice/) });
    const sydney = await data({ action: 'convert', datetime: '2024-04-07T02:30', fromTimezone: 'Australia/Sydney', toTimezone: 'UTC' });
    expect(sydney).toMatchObject({ iso: '2024-04-06T15:30:00+00:00', note: expect.stringMatching(/happens twice/) });
  });

  it.each([
    ['2024-02-30', /not a real calendar date/],
    ['2023-02-29T10:00', /not a real calendar date/],
    ['2024-03-10T25:00', /invalid time of day/],
    ['tomorrow at noon', /Cannot read "tomorrow at noon"/],
    ['03/10/2024', /Use ISO 8601/],
    ['2024-03-10T10:00+25:00', /not a valid UTC offset/],
  ])('refuses the date-time %s', async (datetime, message) => {
    expect(await run({ action: 'convert', datetime, toTimezone: 'UTC' })).toMatchObject({ success: false, error: expect.stringMatching(message) });
  });

  it('refuses an unknown target zone', async () => {
    expect(await run({ action: 'convert', datetime: 'now', toTimezone: 'EST5EDT-ish' })).toMatchObject({
      success: false,
      error: expect.stringMatching(/Unknown time zone "EST5EDT-ish"/),
    });
  });
});

describe('datetime tool: difference', () => {
  it('counts calendar days and months', async () => {
    expect(await data({ action: 'difference', from: '2024-01-01', to: '2024-03-01', unit: 'days' })).toMatchObject({
      value: 60,
      breakdown: { years: 0, months: 2, days: 0, hours: 0 },
      description: '2 months',
      milliseconds: 60 * 86_400_000,
    });
    expect(await data({ action: 'difference', from: '2024-01-31', to: '2024-03-01' })).toMatchObject({
      description: '1 month, 1 day',
    });
  });

  it('counts a 23-hour DST day as one day but 23 hours', async () => {
    const input = { action: 'difference', from: '2024-03-09T12:00', to: '2024-03-10T12:00', timezone: 'America/New_York' } as const;
    expect(await data({ ...input, unit: 'hours' })).toMatchObject({ value: 23, breakdown: { days: 1, hours: 0 } });
    expect(await data({ ...input, unit: 'days' })).toMatchObject({ value: 1 });
  });

  it('counts whole years like an age', async () => {
    expect(await data({ action: 'difference', from: '1990-05-15', to: '2024-05-14', unit: 'years' })).toMatchObject({ value: 33 });
    expect(await data({ action: 'difference', from: '1990-05-15', to: '2024-05-15', unit: 'years' })).toMatchObject({ value: 34 });
  });

  it('handles mixed offsets, fractions and negative spans', async () => {
    expect(await data({ action: 'difference', from: '2024-06-01T12:00:00+02:00', to: '2024-06-01T12:00:00Z', unit: 'minutes' })).toMatchObject({
      value: 120,
    });
    expect(await data({ action: 'difference', from: '2024-01-01T00:00', to: '2024-01-01T00:00:01.5', unit: 'seconds' })).toMatchObject({
      value: 1.5,
    });
    const backwards = await data({ action: 'difference', from: '2024-03-01T06:00', to: '2024-01-01', unit: 'weeks' });
    expect(backwards).toMatchObject({
      milliseconds: -(60 * 86_400_000 + 6 * 3_600_000),
      breakdown: { months: -2, hours: -6 },
      description: 'minus 2 months, 6 hours',
    });
    expect(backwards.value).toBeCloseTo(-(60.25 / 7), 5);
    expect(await data({ action: 'difference', from: '2024-01-01', to: '2024-01-01' })).toMatchObject({ description: '0 seconds' });
  });
});

describe('datetime tool: add', () => {
  it.each([
    ['2024-01-31', 1, 'months', 'UTC', '2024-02-29T00:00:00+00:00'],
    ['2023-01-31', 1, 'months', 'UTC', '2023-02-28T00:00:00+00:00'],
    ['2024-03-31', -1, 'months', 'UTC', '2024-02-29T00:00:00+00:00'],
    ['2024-02-29', 1, 'years', 'UTC', '2025-02-28T00:00:00+00:00'],
    ['2024-03-09T09:00', 1, 'days', 'America/New_York', '2024-03-10T09:00:00-04:00'],
    ['2024-03-09T09:00', 24, 'hours', 'America/New_York', '2024-03-10T10:00:00-04:00'],
    ['2024-03-09T09:00', 2, 'weeks', 'America/New_York', '2024-03-23T09:00:00-04:00'],
    ['2024-01-01T00:00', 1.5, 'days', 'UTC', '2024-01-02T12:00:00+00:00'],
    ['2024-01-01T00:00', -90, 'minutes', 'UTC', '2023-12-31T22:30:00+00:00'],
    ['2024-01-01T00:00:00Z', 1500, 'milliseconds', 'Asia/Tokyo', '2024-01-01T09:00:01.500+09:00'],
    ['2024-03-09T02:30', 1, 'days', 'America/New_York', '2024-03-10T03:30:00-04:00'],
  ] as const)('%s + %s %s in %s → %s', async (datetime, amount, unit, timezone, iso) => {
    expect(await data({ action: 'add', datetime, amount, unit, timezone })).toMatchObject({ action: 'add', iso, unit, amount });
  });

  it('notes a result that landed in a DST gap', async () => {
    expect(await data({ action: 'add', datetime: '2024-03-09T02:30', amount: 1, unit: 'days', timezone: 'America/New_York' })).toMatchObject({
      note: expect.stringMatching(/DST gap/),
    });
  });

  it('uses the default zone and refuses fractional months and results out of range', async () => {
    expect(await data({ action: 'add', datetime: '2024-07-01T12:00', amount: 1, unit: 'hours' }, 'Europe/Paris')).toMatchObject({
      iso: '2024-07-01T13:00:00+02:00',
      timezone: 'Europe/Paris',
    });
    expect(await run({ action: 'add', datetime: '2024-01-01', amount: 1.5, unit: 'months' })).toMatchObject({
      success: false,
      error: expect.stringMatching(/whole numbers/),
    });
    expect(await run({ action: 'add', datetime: '2024-01-01', amount: 1e12, unit: 'days' })).toMatchObject({
      success: false,
      error: expect.stringMatching(/outside the supported date range/),
    });
  });
});

describe('zoned-time', () => {
  it('resolves wall times around transitions like Temporal "compatible"', () => {
    const wall = { year: 2024, month: 3, day: 31, hour: 2, minute: 30, second: 0, millisecond: 0 };
    expect(wallTimeToInstant(wall, 'Europe/Berlin')).toMatchObject({ skipped: true, epochMs: Date.UTC(2024, 2, 31, 1, 30) });
    const repeated = { ...wall, month: 10, day: 27 };
    expect(wallTimeToInstant(repeated, 'Europe/Berlin')).toMatchObject({ ambiguous: true, epochMs: Date.UTC(2024, 9, 27, 0, 30) });
  });

  it('accepts "now" and reads years before 100 literally', () => {
    expect(parseDateTime('NOW', 'UTC', () => 42)).toMatchObject({ epochMs: 42, hadOffset: true });
    expect(new Date(parseDateTime('0050-01-01T00:00Z', 'UTC').epochMs).getUTCFullYear()).toBe(50);
  });
});
