import { getAdminRun } from '#lib/admin/operations-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, params }) => {
  try {
    return { detail: await getAdminRun(params.id, { fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
