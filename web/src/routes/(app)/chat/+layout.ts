import { getChatOptions } from '#lib/chat/sessions-api.ts';
import { listFolders } from '#lib/chat/folders-api.ts';
import { loadFolderSessions, loadPinnedSessions, loadShownSessions, openFolders, sessionsShown } from '#lib/chat/sessions-shown.svelte.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { LayoutLoad } from './$types';

export const load: LayoutLoad = async ({ fetch, url, depends, untrack }) => {
  // Invalidated after a send: the first message names a new session and moves it to the top; by
  // "Show more", which lists a page more; by pinning and filing, which move a chat between lists;
  // and by opening a folder, whose chats load with the rest.
  depends('app:chat-sessions');
  try {
    const [pinnedSessions, sessions, options, folders, folderSessions] = await Promise.all([
      loadPinnedSessions({ fetch }),
      loadShownSessions(untrack(() => sessionsShown.count), { fetch }),
      getChatOptions({ fetch }),
      listFolders({ fetch }),
      loadFolderSessions(untrack(() => [...openFolders]), { fetch }),
    ]);
    return { pinnedSessions, sessions: sessions.items, moreSessions: sessions.more, options, folders, folderSessions };
  } catch (caught) {
    // untrack: moving between sessions should not refetch the list.
    throwPageError(caught, untrack(() => url));
  }
};
