import { throwPageError } from '#lib/page-error.ts';
import { loadUsage, myUsage } from '#lib/usage/usage-api.ts';
import { myUsageLimits } from '#lib/usage/usage-limits-api.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url }) => {
  const [usage, limits] = await Promise.all([loadUsage(url, (days) => myUsage(days, { fetch })), myUsageLimits({ fetch }).catch((caught: unknown) => throwPageError(caught, url))]);
  return { ...usage, limits: limits.limits };
};
