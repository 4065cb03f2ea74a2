import { listSessions } from '#lib/chat/sessions-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

/** Archived chats per page; "Show older" reads the next with the API's cursor. */
const PAGE_SIZE = 50;

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:archived');
  try {
    return { page: await listSessions({ archived: 'true', limit: PAGE_SIZE }, { fetch }), pageSize: PAGE_SIZE };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
