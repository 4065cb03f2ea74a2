import { getChatOptions } from '#lib/chat/sessions-api.ts';
import { loadShownSessions, sessionsShown } from '#lib/chat/sessions-shown.svelte.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { LayoutLoad } from './$types';

export const load: LayoutLoad = async ({ fetch, url, depends, untrack }) => {
  // Invalidated after a send: the first message names a new session and moves it to the top; and
  // by "Show more", which lists a page more.
  depends('app:chat-sessions');
  try {
    const [sessions, options] = await Promise.all([loadShownSessions(untrack(() => sessionsShown.count), { fetch }), getChatOptions({ fetch })]);
    return { sessions: sessions.items, moreSessions: sessions.more, options };
  } catch (caught) {
    // untrack: moving between sessions should not refetch the list.
    throwPageError(caught, untrack(() => url));
  }
};
