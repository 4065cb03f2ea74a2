/** What the message box says about the user's token limits: nothing until one is 80 % spent. */
import type { UsageLimitStatus } from '@agentq/shared/api-types';
import { formatDateTime, t } from '../i18n/i18n.svelte.ts';

/** The share of a limit spent from which the message box warns. */
export const USAGE_WARNING_SHARE = 0.8;

const count = (value: unknown) => (typeof value === 'number' ? value.toLocaleString() : String(value));

/** A limit reached (a 429 `usage_limit`'s details, or a status at or past its limit), in the page's language, with when it resets. */
export function usageLimitReachedText(status: Partial<Record<keyof UsageLimitStatus, unknown>>): string {
  const { period, spent, limit, resetsAt } = status;
  return t(period === 'month' ? 'usageLimits.reachedMonth' : 'usageLimits.reachedDay', { spent: count(spent), limit: count(limit), when: formatDateTime(String(resetsAt)) });
}

/** The warning for the most spent of `limits` when it is at least USAGE_WARNING_SHARE spent, else null. */
export function usageWarning(limits: readonly UsageLimitStatus[]): string | null {
  const worst = [...limits].filter((status) => status.limit > 0).sort((a, b) => b.spent / b.limit - a.spent / a.limit)[0];
  if (!worst || worst.spent / worst.limit < USAGE_WARNING_SHARE) return null;
  if (worst.spent >= worst.limit) return usageLimitReachedText(worst);
  const percent = Math.floor((worst.spent / worst.limit) * 100);
  return t(worst.period === 'month' ? 'usageLimits.nearMonth' : 'usageLimits.nearDay', { percent, spent: count(worst.spent), limit: count(worst.limit), when: formatDateTime(worst.resetsAt) });
}
