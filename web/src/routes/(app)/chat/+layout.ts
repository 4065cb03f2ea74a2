import { apiFetch } from '#lib/api.ts';
import type { ChatOptions, ChatSession } from '#lib/chat/types.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { LayoutLoad } from './$types';

export const load: LayoutLoad = async ({ fetch, url, depends, untrack }) => {
  // Invalidated after a send: the first message names a new session and moves it to the top.
  depends('app:chat-sessions');
  try {
    const [sessions, options] = await Promise.all([
      apiFetch<{ items: ChatSession[] }>('/api/sessions', { fetch }),
      apiFetch<ChatOptions>('/api/chat-options', { fetch }),
    ]);
    return { sessions: sessions.items, options };
  } catch (caught) {
    // untrack: moving between sessions should not refetch the list.
    throwPageError(caught, untrack(() => url));
  }
};
