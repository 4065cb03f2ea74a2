import { listTokens } from '#lib/account/account-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:tokens');
  try {
    return { tokens: (await listTokens(fetch)).items };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
