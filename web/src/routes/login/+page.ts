import { redirect } from '@sveltejs/kit';
import { getSessionUser } from '#lib/account/account-api.ts';
import { safeNextPath } from '#lib/next-path.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url }) => {
  const next = safeNextPath(url.searchParams.get('next'));
  let signedIn = false;
  try {
    signedIn = (await getSessionUser(fetch)).user !== null;
  } catch {
    // The API is down: show the form.
  }
  if (signedIn) redirect(307, next);
  return { next };
};
