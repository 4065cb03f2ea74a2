import { describe, expect, it } from 'vitest';
import { calendarDays, usageDays } from './usage-api.ts';

describe("a usage page's days", () => {
  const today = new Date(2026, 2, 15, 13, 30);

  it('are the last 30 up to today unless the URL says, or the 30 up to the last day given', () => {
    expect(usageDays(null, null, today)).toEqual({ from: '2026-02-14', to: '2026-03-15' });
    expect(usageDays(undefined, '2026-01-31', today)).toEqual({ from: '2026-01-02', to: '2026-01-31' });
    expect(usageDays('2026-03-01', undefined, today)).toEqual({ from: '2026-03-01', to: '2026-03-15' });
  });

  it('leave out what is not a day, and say when the range is backwards or too long', () => {
    expect(usageDays('yesterday', '2026-02-30', today)).toEqual({ from: '2026-02-14', to: '2026-03-15' });
    expect(usageDays('2026-03-10', '2026-03-01', today)).toMatchObject({ problem: 'backwards' });
    expect(usageDays('2025-01-01', '2026-01-01', today)).toEqual({ from: '2025-01-01', to: '2026-01-01' });
    expect(usageDays('2025-01-01', '2026-01-02', today)).toMatchObject({ problem: 'tooLong' });
  });

  it('are every day of the range for the chart, across months', () => {
    expect(calendarDays('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(calendarDays('2026-03-02', '2026-03-02')).toEqual(['2026-03-02']);
  });
});
