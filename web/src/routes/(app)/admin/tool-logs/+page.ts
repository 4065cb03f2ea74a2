import { throwPageError } from '#lib/page-error.ts';
import { listToolLogs, listTools, type ToolLogQuery, type ToolLogStatus } from '#lib/tools/tools-api.ts';
import type { PageLoad } from './$types';

/** Rows per page (`?limit=` overrides, up to the API's maximum); "Load more" fetches the next page with the API's cursor. */
const PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

/** The filters live in the URL, so a filtered view can be reloaded and shared. */
const FILTER_KEYS = ['toolId', 'status', 'from', 'to'] as const;

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:tool-logs');
  const filters = Object.fromEntries(FILTER_KEYS.map((key) => [key, url.searchParams.get(key) ?? ''])) as Record<(typeof FILTER_KEYS)[number], string>;
  const limit = Number.parseInt(url.searchParams.get('limit') ?? '', 10);
  const query: ToolLogQuery = { ...filters, status: filters.status as ToolLogStatus | '', limit: limit >= 1 && limit <= MAX_PAGE_SIZE ? limit : PAGE_SIZE };
  try {
    const [logs, tools] = await Promise.all([listToolLogs(query, { fetch }), listTools({ fetch })]);
    return { logs, tools, filters, query };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
