import { describe, expect, it } from 'vitest';
import { activityPeriod, groupByActivity } from './activity-groups.ts';

const now = new Date(2026, 11, 7, 9, 30);
const at = (month: number, day: number, hour = 12, year = 2026) => new Date(year, month, day, hour);

describe('chat list sections by last activity', () => {
  it('names today, yesterday, the previous 7 and 30 days, then the month', () => {
    expect(activityPeriod(at(11, 7, 0), now)).toEqual({ kind: 'today' });
    expect(activityPeriod(at(11, 6, 23), now)).toEqual({ kind: 'yesterday' });
    expect(activityPeriod(at(11, 5, 1), now)).toEqual({ kind: 'week' });
    expect(activityPeriod(at(10, 30), now)).toEqual({ kind: 'week' });
    expect(activityPeriod(at(10, 29), now)).toEqual({ kind: 'month' });
    expect(activityPeriod(at(10, 7), now)).toEqual({ kind: 'month' });
    expect(activityPeriod(at(10, 6), now)).toEqual({ kind: 'calendar-month', year: 2026, month: 10 });
    expect(activityPeriod(at(0, 31, 12, 2025), now)).toEqual({ kind: 'calendar-month', year: 2025, month: 0 });
    // A clock a little ahead of the server's: still today.
    expect(activityPeriod(at(11, 8, 1), now)).toEqual({ kind: 'today' });
  });

  it('keeps the order of a newest-first list, one section per run of it', () => {
    const chats = [at(11, 7, 9), at(11, 7, 8), at(11, 6), at(11, 3), at(9, 20), at(9, 2), at(7, 15), { invalid: true }].map((date, index) => ({
      id: index,
      updatedAt: date instanceof Date ? date.toISOString() : 'not a time',
    }));
    expect(groupByActivity(chats, now).map((group) => [group.key, group.items.map((chat) => chat.id)])).toEqual([
      ['today', [0, 1]],
      ['yesterday', [2]],
      ['week', [3]],
      ['2026-10', [4, 5]],
      ['2026-8', [6, 7]],
    ]);
    expect(groupByActivity([], now)).toEqual([]);
  });
});
