import { getOverview, listAdminRuns } from '#lib/admin/operations-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import { runFilters, runsQuery, THROUGHPUT_MINUTES } from './dashboard-query.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url }) => {
  const query = runsQuery(url);
  try {
    const [overview, runs] = await Promise.all([getOverview(THROUGHPUT_MINUTES, { fetch }), listAdminRuns(query, { fetch })]);
    return { overview, runs, filters: runFilters(url), query, paged: url.searchParams.has('cursor') };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
