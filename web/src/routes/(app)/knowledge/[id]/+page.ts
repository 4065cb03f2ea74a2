import { listGroups } from '#lib/groups/groups-api.ts';
import { getKnowledgeBase } from '#lib/knowledge/knowledge-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, params, url, depends, parent }) => {
  depends('app:knowledge-base');
  try {
    // Only admins share, so only they need the groups to share with.
    const { user } = await parent();
    const isAdmin = user.role === 'admin';
    const [base, groups] = await Promise.all([getKnowledgeBase(params.id, { fetch }), isAdmin ? listGroups({ fetch }) : []]);
    return { base, groups, isAdmin };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
