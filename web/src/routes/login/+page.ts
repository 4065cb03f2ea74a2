import { redirect } from '@sveltejs/kit';
import { getMe } from '#lib/account/account-api.ts';
import { safeNextPath } from '#lib/next-path.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url }) => {
  const next = safeNextPath(url.searchParams.get('next'));
  let signedIn = false;
  try {
    await getMe(fetch);
    signedIn = true;
  } catch {
    // Not signed in, or the API is down: either way, show the form.
  }
  if (signedIn) redirect(307, next);
  return { next };
};
