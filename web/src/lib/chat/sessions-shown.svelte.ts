/** How many of the user's sessions the chat sidebar (and the archive) lists (see shown-pages.svelte.ts). */
import { SvelteSet } from 'svelte/reactivity';
import type { FetchOption } from '../api-routes.ts';
import { loadShown, ShownCount } from '../paging/shown-pages.svelte.ts';
import { listSessions, type ListedSession } from './sessions-api.ts';

const SESSIONS_PAGE = 50;

export const sessionsShown = new ShownCount(SESSIONS_PAGE);

/** The `count` most recently active sessions that are neither pinned nor in a folder, and whether there are older ones. */
export function loadShownSessions(count: number, options: FetchOption = {}): Promise<{ items: ListedSession[]; more: boolean }> {
  return loadShown(count, (query) => listSessions({ ...query, pinned: 'false', folder: 'none' }, options));
}

/** The folders the sidebar shows open; their chats load with the list. */
export const openFolders = new SvelteSet<string>();

/** A folder's chats the sidebar lists when it is open (pinned ones are under Pinned). */
const MOST_IN_FOLDER = 200;

/** The chats of each open folder, by folder id. */
export async function loadFolderSessions(folderIds: readonly string[], options: FetchOption = {}): Promise<Record<string, ListedSession[]>> {
  const lists = await Promise.all(folderIds.map((folder) => listSessions({ folder, pinned: 'false', limit: MOST_IN_FOLDER }, options)));
  return Object.fromEntries(folderIds.map((id, index) => [id, lists[index]!.items]));
}

/** Pinned chats are few: the sidebar lists up to this many above the rest. */
const MOST_PINNED = 200;

/** The pinned sessions, most recently active first. */
export async function loadPinnedSessions(options: FetchOption = {}): Promise<ListedSession[]> {
  return (await listSessions({ pinned: 'true', limit: MOST_PINNED }, options)).items;
}

/** How many archived chats Account → Archived chats lists: 50, and 50 more per "Show older". */
export const archivedShown = new ShownCount(SESSIONS_PAGE);

/** The `count` most recently active archived sessions, and whether there are older ones. */
export function loadArchivedSessions(count: number, options: FetchOption = {}): Promise<{ items: ListedSession[]; more: boolean }> {
  return loadShown(count, (query) => listSessions({ ...query, archived: 'true' }, options));
}
