import { loadShownUsers, usersShown } from '#lib/users/users-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends, untrack }) => {
  // Invalidated after every change here and by "Show more", which lists a page more.
  depends('app:users');
  const q = url.searchParams.get('q')?.trim() ?? '';
  try {
    const users = await loadShownUsers(untrack(() => usersShown.count), q, { fetch });
    return { users: users.items, moreUsers: users.more, total: users.total ?? users.items.length, q };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
