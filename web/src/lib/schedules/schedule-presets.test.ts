import { describe, expect, it } from 'vitest';
import { cronOf, presetOf } from './schedule-presets.ts';

describe('schedule presets', () => {
  it('produce the cron for each preset and read it back', () => {
    expect(cronOf({ kind: 'daily', time: '07:05', weekday: 1, cron: '' })).toBe('5 7 * * *');
    expect(cronOf({ kind: 'weekdays', time: '18:30', weekday: 1, cron: '' })).toBe('30 18 * * 1-5');
    expect(cronOf({ kind: 'weekly', time: '09:00', weekday: 0, cron: '' })).toBe('0 9 * * 0');
    expect(cronOf({ kind: 'hourly', time: '09:00', weekday: 1, cron: '' })).toBe('0 * * * *');
    expect(cronOf({ kind: 'custom', time: '09:00', weekday: 1, cron: ' */15 * * * * ' })).toBe('*/15 * * * *');
    expect(presetOf('5 7 * * *')).toMatchObject({ kind: 'daily', time: '07:05' });
    expect(presetOf('30 18 * * 1-5')).toMatchObject({ kind: 'weekdays', time: '18:30' });
    expect(presetOf('0 9 * * 3')).toMatchObject({ kind: 'weekly', time: '09:00', weekday: 3 });
    expect(presetOf('0 * * * *')).toMatchObject({ kind: 'hourly' });
    expect(presetOf('*/15 * * * *')).toMatchObject({ kind: 'custom', cron: '*/15 * * * *' });
    expect(presetOf('0 25 * * *')).toMatchObject({ kind: 'custom' });
  });
});
