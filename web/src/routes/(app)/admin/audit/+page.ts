import { dayWindow, isAuditCategory, listAuditEvents } from '#lib/audit/audit-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

/** Events per page; "Load more" reads the next with the API's cursor. */
const PAGE_SIZE = 50;

export const load: PageLoad = async ({ fetch, url }) => {
  // The filter lives in the URL, so a view (one admin's changes last week) can be reloaded and shared.
  const requested = url.searchParams.get('category');
  const category = isAuditCategory(requested) ? requested : undefined;
  const actor = url.searchParams.get('actor') || undefined;
  const from = url.searchParams.get('from') || undefined;
  const to = url.searchParams.get('to') || undefined;
  const window = dayWindow(from, to);
  try {
    const page = await listAuditEvents({ action: category, actorUserId: actor, ...window, limit: PAGE_SIZE }, { fetch });
    return { page, category, actor, from: window.since ? from : undefined, to: window.until ? to : undefined, window, pageSize: PAGE_SIZE };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
