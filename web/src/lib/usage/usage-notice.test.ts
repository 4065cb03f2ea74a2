import { describe, expect, it } from 'vitest';
import { usageWarning } from './usage-notice.ts';

const day = (spent: number, limit: number) => ({ period: 'day' as const, spent, limit, resetsAt: '2026-12-08T00:00:00.000Z' });
const month = (spent: number, limit: number) => ({ period: 'month' as const, spent, limit, resetsAt: '2027-01-01T00:00:00.000Z' });

describe('the message box’s token-limit warning', () => {
  it('says nothing without a limit or below 80 % of every limit', () => {
    expect(usageWarning([])).toBeNull();
    expect(usageWarning([day(799, 1000), month(10, 100_000)])).toBeNull();
  });

  it('warns about the most spent limit from 80 %, with the share, the counts and when it resets', () => {
    expect(usageWarning([day(800, 1000)])).toMatch(/^You have used 80% of your tokens for today \(800 of 1,000\)\. The limit resets .*2026/);
    expect(usageWarning([day(500, 1000), month(95_500, 100_000)])).toMatch(/^You have used 95% of your tokens for this month \(95,500 of 100,000\)/);
  });

  it('says the limit is reached once it is, as a refused send would', () => {
    expect(usageWarning([day(1234, 1000)])).toMatch(/^You have used 1,234 of your 1,000 tokens today\. You can send again after /);
  });
});
