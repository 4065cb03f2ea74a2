import { error, redirect } from '@sveltejs/kit';
import { getMe } from '#lib/account/account-api.ts';
import { ApiError } from '#lib/api.ts';
import { listActiveBanners } from '#lib/banners/banners-api.ts';
import { loginPath } from '#lib/next-path.ts';
import type { LayoutLoad } from './$types';

export const load: LayoutLoad = async ({ fetch, url, untrack, depends }) => {
  // Admin → Banners invalidates this, so an admin sees their change at once; others on their next page load.
  depends('app:banners');
  // The banners come with the session check, once per page load; without them the app still works.
  const banners = listActiveBanners({ fetch }).catch(() => []);
  try {
    const { user } = await getMe(fetch);
    return { user, banners: await banners };
  } catch (caught) {
    if (!(caught instanceof ApiError)) throw caught;
    // untrack: the session check should not rerun on every navigation inside the app.
    if (caught.status === 401) redirect(307, untrack(() => loginPath(url)));
    error(caught.status || 503, caught.message);
  }
};
