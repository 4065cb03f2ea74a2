import { listChatShares } from '#lib/chat/shares-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:shares');
  try {
    return { shares: await listChatShares({ fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
