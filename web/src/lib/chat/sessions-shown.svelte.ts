/**
 * How many of the user's sessions the chat sidebar lists: a page to start with, a page more each
 * time "Show more" is pressed. Module state (the app is an SPA, one user per tab), so when the list
 * reloads after a send, a rename or a delete it lists as many as before: a newer session pushing
 * the rest down never drops one from the end of what was shown.
 */
import type { FetchOption } from '../api-routes.ts';
import { listSessions, type ChatSession } from './sessions-api.ts';

export const SESSIONS_PAGE = 50;
/** The API's largest page. */
const MOST_PER_REQUEST = 200;

class SessionsShown {
  count = $state(SESSIONS_PAGE);

  more(): void {
    this.count += SESSIONS_PAGE;
  }
}

export const sessionsShown = new SessionsShown();

/** The `count` most recently active sessions, and whether there are older ones. */
export async function loadShownSessions(count: number, options: FetchOption = {}): Promise<{ items: ChatSession[]; more: boolean }> {
  const items: ChatSession[] = [];
  let cursor: string | null = null;
  do {
    const page = await listSessions({ limit: Math.min(count - items.length, MOST_PER_REQUEST), cursor }, options);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor && items.length < count);
  return { items, more: cursor !== null };
}
