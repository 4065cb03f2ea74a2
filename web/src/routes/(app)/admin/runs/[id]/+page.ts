import { apiFetch } from '#lib/api.ts';
import type { RunDetail } from '#lib/admin/operations.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, params }) => {
  try {
    return { detail: await apiFetch<RunDetail>(`/api/admin/runs/${encodeURIComponent(params.id)}`, { fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
