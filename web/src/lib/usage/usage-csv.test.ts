import { describe, expect, it } from 'vitest';
import type { AdminUsageReport } from './usage-api.ts';
import { usageCsv, usageCsvName } from './usage-csv.ts';

const sums = { runs: 2, inputTokens: 300, outputTokens: 50, reasoningTokens: 30, totalTokens: 350, cost: 0.0012 };
const report: AdminUsageReport = {
  since: '2026-12-01T00:00:00.000Z',
  until: '2026-12-03T00:00:00.000Z',
  tz: 'UTC',
  totals: { ...sums, runs: 3, totalTokens: 360, inputTokens: 305, outputTokens: 55 },
  byDay: [
    { day: '2026-12-01', ...sums },
    { day: '2026-12-02', runs: 1, inputTokens: 5, outputTokens: 5, reasoningTokens: 0, totalTokens: 10, cost: null },
  ],
  byModel: [
    { modelId: 'mdl_1', modelName: 'Big, "fast" model', ...sums },
    { modelId: 'mdl_gone', modelName: null, runs: 1, inputTokens: 5, outputTokens: 5, reasoningTokens: 0, totalTokens: 10, cost: null },
  ],
  byUser: [{ userId: 'usr_1', userName: '=HYPERLINK("http://127.0.0.1")', userEmail: 'ada@example.test', ...sums, runs: 3 }],
};

describe('usageCsv', () => {
  it('lists days, models, users and the totals, quoting what needs it and keeping names that look like formulas as text', () => {
    expect(usageCsv(report).split('\r\n')).toEqual([
      'group,id,name,email,runs,input_tokens,output_tokens,reasoning_tokens,total_tokens,cost_usd',
      'day,2026-12-01,2026-12-01,,2,300,50,30,350,0.0012',
      'day,2026-12-02,2026-12-02,,1,5,5,0,10,',
      'model,mdl_1,"Big, ""fast"" model",,2,300,50,30,350,0.0012',
      'model,mdl_gone,,,1,5,5,0,10,',
      `user,usr_1,"'=HYPERLINK(""http://127.0.0.1"")",ada@example.test,3,300,50,30,350,0.0012`,
      'total,,,,3,305,55,30,360,0.0012',
      '',
    ]);
  });

  it("leaves the users out of a person's own report", () => {
    const { byUser: _, ...own } = report;
    expect(usageCsv(own)).not.toContain('\r\nuser,');
    expect(usageCsvName('2026-12-01', '2026-12-02')).toBe('agentq-usage-2026-12-01-to-2026-12-02.csv');
  });
});
