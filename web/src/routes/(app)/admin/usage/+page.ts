import { throwPageError } from '#lib/page-error.ts';
import { everyonesUsage, loadUsage } from '#lib/usage/usage-api.ts';
import { usageLimitSettings } from '#lib/usage/usage-limits-api.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url }) => {
  const [usage, limits] = await Promise.all([loadUsage(url, (days) => everyonesUsage(days, { fetch })), usageLimitSettings({ fetch }).catch((caught: unknown) => throwPageError(caught, url))]);
  return { ...usage, limits };
};
