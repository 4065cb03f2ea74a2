import { archivedShown, loadArchivedSessions } from '#lib/chat/sessions-shown.svelte.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, url, depends, untrack }) => {
  // Invalidated after a restore or a delete here, and by "Show older", which lists a page more.
  depends('app:archived');
  try {
    const archived = await loadArchivedSessions(untrack(() => archivedShown.count), { fetch });
    return { sessions: archived.items, more: archived.more };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
