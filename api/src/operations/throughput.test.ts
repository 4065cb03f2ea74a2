import { describe, expect, it } from 'vitest';
import { perMinuteSeries } from './throughput';

const MINUTE = 60_000;
const at = (minute: number, second = 0) => minute * MINUTE + second * 1000;

describe('perMinuteSeries', () => {
  it('is all zeros before any job finished', () => {
    expect(perMinuteSeries({ meta: { count: 0, prevTS: 0, prevCount: 0 }, data: [], count: 0 }, at(100), 5)).toEqual([0, 0, 0, 0, 0]);
  });

  it('puts the jobs since prevTS in its minute and the stored points in the minutes before it', () => {
    // Minute 97: 4 jobs, minute 98: none, minute 99: 2 jobs (stored when a job finished in minute 100);
    // minute 100: 3 jobs so far (count − prevCount). Now is minute 101: nothing yet.
    const metrics = { meta: { count: 9, prevTS: at(100, 10), prevCount: 6 }, data: [2, 0, 4], count: 3 };
    expect(perMinuteSeries(metrics, at(101, 30), 6)).toEqual([0, 4, 0, 2, 3, 0]);
  });

  it('shows nothing for a window that ended before the last recorded minute started', () => {
    const metrics = { meta: { count: 5, prevTS: at(50), prevCount: 0 }, data: [], count: 0 };
    expect(perMinuteSeries(metrics, at(100), 3)).toEqual([0, 0, 0]);
  });
});
