import { everyonesUsage, loadUsage } from '#lib/usage/usage-api.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = ({ fetch, url }) => loadUsage(url, (days) => everyonesUsage(days, { fetch }));
