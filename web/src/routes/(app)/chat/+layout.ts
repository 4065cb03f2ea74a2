import { getChatOptions } from '#lib/chat/sessions-api.ts';
import { loadPinnedSessions, loadShownSessions, sessionsShown } from '#lib/chat/sessions-shown.svelte.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { LayoutLoad } from './$types';

export const load: LayoutLoad = async ({ fetch, url, depends, untrack }) => {
  // Invalidated after a send: the first message names a new session and moves it to the top; by
  // "Show more", which lists a page more; and by pinning, which moves a chat between the two lists.
  depends('app:chat-sessions');
  try {
    const [pinnedSessions, sessions, options] = await Promise.all([
      loadPinnedSessions({ fetch }),
      loadShownSessions(untrack(() => sessionsShown.count), { fetch }),
      getChatOptions({ fetch }),
    ]);
    return { pinnedSessions, sessions: sessions.items, moreSessions: sessions.more, options };
  } catch (caught) {
    // untrack: moving between sessions should not refetch the list.
    throwPageError(caught, untrack(() => url));
  }
};
