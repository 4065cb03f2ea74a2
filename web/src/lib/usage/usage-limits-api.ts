/** Token usage limits: your own with their spend (`GET /api/usage/limits`), and the admins' settings. */
import type { UsageLimitDefaults, UsageLimitStatus, UserUsageLimits } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { segment, type FetchOption } from '../api-routes.ts';

export type { UsageLimitDefaults, UsageLimitStatus, UserUsageLimits };

/** The limits that hold for you, each with what you spent in its period; empty when none does. */
export function myUsageLimits(options: FetchOption = {}): Promise<{ limits: UsageLimitStatus[] }> {
  return apiFetch('/api/usage/limits', options);
}

/** The default limits and every user's override (admins). */
export function usageLimitSettings(options: FetchOption = {}): Promise<{ defaults: UsageLimitDefaults; overrides: ({ userId: string } & UserUsageLimits)[] }> {
  return apiFetch('/api/admin/usage-limits', options);
}

export function setUsageLimitDefaults(input: UsageLimitDefaults): Promise<UsageLimitDefaults> {
  return apiFetch('/api/admin/usage-limits', { method: 'PUT', json: input });
}

export function setUserUsageLimits(userId: string, input: UserUsageLimits): Promise<UserUsageLimits> {
  return apiFetch(`/api/users/${segment(userId)}/usage-limits`, { method: 'PUT', json: input });
}

/**
 * A limit field's text as the API takes it: a number of tokens, or null when empty (no limit). Text
 * that is no number goes as it is, for the API to refuse in words beside the field.
 */
export function tokensOf(text: string | number | null | undefined): number | null {
  const trimmed = String(text ?? '').trim().replaceAll(',', '');
  if (trimmed === '') return null;
  return (/^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed) as number;
}
