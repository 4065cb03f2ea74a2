import { listGroups } from '#lib/groups/groups-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:groups');
  try {
    return { groups: await listGroups({ fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
