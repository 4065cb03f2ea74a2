import { apiFetch } from '#lib/api.ts';
import type { Overview, RunPage } from '#lib/admin/operations.ts';
import { throwPageError } from '#lib/page-error.ts';
import { runFilters, runsQuery, THROUGHPUT_MINUTES } from './dashboard-query.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url }) => {
  const query = runsQuery(url);
  try {
    const [overview, runs] = await Promise.all([
      apiFetch<Overview>(`/api/admin/overview?minutes=${THROUGHPUT_MINUTES}`, { fetch }),
      apiFetch<RunPage>(`/api/admin/runs?${query}`, { fetch }),
    ]);
    return { overview, runs, filters: runFilters(url), query, paged: url.searchParams.has('cursor') };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
