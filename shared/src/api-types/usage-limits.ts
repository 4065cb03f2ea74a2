import { z } from 'zod';

/** The calendar periods a token limit can cover, counted in UTC. */
export const USAGE_PERIODS = ['day', 'month'] as const;
export type UsagePeriod = (typeof USAGE_PERIODS)[number];

/** The largest limit accepted (tokens); far above any real budget, well inside a JSON number. */
export const MAX_TOKEN_LIMIT = 1_000_000_000_000;

const tokens = z
  .number({ error: 'Give a whole number of tokens, or null for no limit' })
  .int('Give a whole number of tokens')
  .min(1, 'A limit is at least 1 token (null means no limit)')
  .max(MAX_TOKEN_LIMIT, `At most ${MAX_TOKEN_LIMIT} tokens`);

/** Everyone's default limits (admins are not held to them): tokens per UTC day and per UTC month, null for none. */
export const usageLimitDefaultsSchema = z.strictObject({ perDay: tokens.nullable(), perMonth: tokens.nullable() });
export type UsageLimitDefaults = z.infer<typeof usageLimitDefaultsSchema>;

/** One period of a user's override: a number of tokens, 'unlimited', or 'default' (no override: the default applies). */
export const usageLimitOverrideValueSchema = z.union([tokens, z.literal('unlimited'), z.literal('default')], {
  error: 'Give a whole number of tokens, "unlimited" or "default"',
});
export type UsageLimitOverrideValue = z.infer<typeof usageLimitOverrideValueSchema>;

/** A user's override of the default limits, per period. */
export const userUsageLimitsSchema = z.strictObject({ perDay: usageLimitOverrideValueSchema, perMonth: usageLimitOverrideValueSchema });
export type UserUsageLimits = z.infer<typeof userUsageLimitsSchema>;

/** One limit that applies to a user, with what they spent in its current period. */
export type UsageLimitStatus = { period: UsagePeriod; limit: number; spent: number; resetsAt: string };

/** The details of a 429 `usage_limit` error: the limit reached, what was spent, when the period ends. */
export type UsageLimitErrorDetails = UsageLimitStatus;
