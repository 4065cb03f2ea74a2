import { error, redirect } from '@sveltejs/kit';
import { getMe } from '#lib/account/account-api.ts';
import { ApiError } from '#lib/api.ts';
import { loginPath } from '#lib/next-path.ts';
import type { LayoutLoad } from './$types';

export const load: LayoutLoad = async ({ fetch, url, untrack }) => {
  try {
    const { user } = await getMe(fetch);
    return { user };
  } catch (caught) {
    if (!(caught instanceof ApiError)) throw caught;
    // untrack: the session check should not rerun on every navigation inside the app.
    if (caught.status === 401) redirect(307, untrack(() => loginPath(url)));
    error(caught.status || 503, caught.message);
  }
};
