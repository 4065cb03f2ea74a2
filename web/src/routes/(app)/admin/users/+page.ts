import { listUsers } from '#lib/users/users-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:users');
  try {
    return { users: (await listUsers(fetch)).items };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
