import { describe, expect, it } from 'vitest';
import { ApiError } from '../api.ts';
import { setLocale } from '../i18n/i18n.svelte.ts';
import { describeError } from './conversation.svelte.ts';

// What the API answers when a send would pass the user's token limit (429).
const refusal = (period: 'day' | 'month') =>
  new ApiError({
    status: 429,
    code: 'usage_limit',
    message: 'You have used 1234 of your 1000 tokens today; you can send again after 2026-12-08T00:00:00.000Z',
    details: { period, limit: 1000, spent: 1234, resetsAt: '2026-12-08T00:00:00.000Z' },
  });

describe("a send refused for the user's token limit", () => {
  it('says the spend, the limit and when it resets, for the day or the month', () => {
    expect(describeError(refusal('day'))).toMatch(/^You have used 1,234 of your 1,000 tokens today\. You can send again after .*2026.*\.$/);
    expect(describeError(refusal('month'))).toMatch(/^You have used 1,234 of your 1,000 tokens this month\. /);
  });

  it('says it in Chinese on a Chinese page (not the API\'s English)', () => {
    setLocale('zh');
    try {
      const text = describeError(refusal('day'));
      expect(text).toMatch(/^你今天已用 1,234 \/ 1,000 个令牌。.*2026.* 之后可以再次发送。$/);
      expect(text).not.toContain('You have used');
    } finally {
      setLocale('en');
    }
  });
});
