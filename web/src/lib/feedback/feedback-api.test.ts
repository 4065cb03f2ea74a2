import { describe, expect, it } from 'vitest';
import { dayWindow, feedbackViewUrl } from './feedback-api.ts';

describe("the feedback page's days", () => {
  it('takes the days on the calendar the admin sees, the last one whole', () => {
    expect(dayWindow('2026-12-01', '2026-12-07')).toEqual({ since: new Date(2026, 11, 1).toISOString(), until: new Date(2026, 11, 8).toISOString() });
    expect(dayWindow(undefined, '2026-12-31')).toEqual({ since: undefined, until: new Date(2027, 0, 1).toISOString() });
    expect(dayWindow('2026-02-28', null)).toEqual({ since: new Date(2026, 1, 28).toISOString(), until: undefined });
  });

  it('leaves out a day that is not one', () => {
    expect(dayWindow('yesterday', '12/07/2026')).toEqual({ since: undefined, until: undefined });
  });

  it('keeps the days in the URL of every view', () => {
    expect(feedbackViewUrl({ rating: 'down', agentId: 'agt_1', from: '2026-12-01', to: '2026-12-07' })).toBe('/admin/feedback?rating=down&agentId=agt_1&from=2026-12-01&to=2026-12-07');
    expect(feedbackViewUrl({ rating: 'all' })).toBe('/admin/feedback');
  });
});
