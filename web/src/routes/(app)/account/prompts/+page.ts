import { listGroups } from '#lib/groups/groups-api.ts';
import { listPrompts } from '#lib/prompts/prompts-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends, parent }) => {
  depends('app:prompts');
  try {
    // Only admins share, so only they need the groups to share with.
    const { user } = await parent();
    const [prompts, groups] = await Promise.all([listPrompts({ fetch }), user.role === 'admin' ? listGroups({ fetch }) : []]);
    return { prompts, groups, isAdmin: user.role === 'admin' };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
