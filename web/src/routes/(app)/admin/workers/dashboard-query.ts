/** Minutes of throughput the chart shows. */
export const THROUGHPUT_MINUTES = 30;
/** The dashboard refreshes this often (at most every 2 s, as operators asked). */
export const POLL_MS = 2000;
const RUN_PAGE_SIZE = 20;

/** The runs table's filters live in the URL, so a filtered view can be reloaded and shared. */
export const FILTER_KEYS = ['status', 'kind', 'user'] as const;
export type RunFilters = Record<(typeof FILTER_KEYS)[number], string>;

export function runFilters(url: URL): RunFilters {
  return Object.fromEntries(FILTER_KEYS.map((key) => [key, url.searchParams.get(key) ?? ''])) as RunFilters;
}

/** `/api/admin/runs` query for the page the URL shows (filters and cursor). */
export function runsQuery(url: URL): string {
  const query = new URLSearchParams({ limit: String(RUN_PAGE_SIZE) });
  for (const key of [...FILTER_KEYS, 'cursor'] as const) {
    const value = url.searchParams.get(key);
    if (value) query.set(key, value);
  }
  return query.toString();
}
