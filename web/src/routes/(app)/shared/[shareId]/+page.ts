import { getSharedChat } from '#lib/chat/shares-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, params, url }) => {
  try {
    return { shared: await getSharedChat(params.shareId, { fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
