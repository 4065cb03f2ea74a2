import { getChatOptions, listSessions } from '#lib/chat/sessions-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { LayoutLoad } from './$types';

export const load: LayoutLoad = async ({ fetch, url, depends, untrack }) => {
  // Invalidated after a send: the first message names a new session and moves it to the top.
  depends('app:chat-sessions');
  try {
    const [sessions, options] = await Promise.all([listSessions({ fetch }), getChatOptions({ fetch })]);
    return { sessions, options };
  } catch (caught) {
    // untrack: moving between sessions should not refetch the list.
    throwPageError(caught, untrack(() => url));
  }
};
