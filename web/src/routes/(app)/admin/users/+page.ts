import { countAwaitingApproval, loadShownUsers, usersShown } from '#lib/users/users-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import { usageLimitSettings } from '#lib/usage/usage-limits-api.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends, untrack }) => {
  // Invalidated after every change here and by "Show more", which lists a page more.
  depends('app:users');
  const q = url.searchParams.get('q')?.trim() ?? '';
  // ?awaiting=true: only the sign-ups an admin has still to approve.
  const awaiting = url.searchParams.get('awaiting') === 'true';
  try {
    const [users, awaitingTotal, limits] = await Promise.all([
      loadShownUsers(untrack(() => usersShown.count), q, { fetch }, awaiting),
      countAwaitingApproval({ fetch }),
      usageLimitSettings({ fetch }),
    ]);
    return { users: users.items, moreUsers: users.more, total: users.total ?? users.items.length, q, awaiting, awaitingTotal, limitOverrides: limits.overrides };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
