import { sql, type SQL } from 'drizzle-orm';
import { executeRows, type Database } from '../db/client';
import { ACTIVE_RUN_STATUSES, chatSessions, runs } from '../db/schema';
import type { ChatSession } from './chat';
import { ConflictError } from './errors';

/**
 * Temporary chats (`chat_sessions.temporary`): the owner reads, continues and exports one like any
 * chat, but it is in no list, search or "export all", its runs neither read nor write memory, it
 * cannot be shared, forked, pinned, archived or filed, and the workers' reconciler deletes it after
 * a day without use.
 */

/** How long a temporary chat stays after its last use (a message, an answer). */
export const TEMPORARY_CHAT_IDLE_MS = 24 * 60 * 60 * 1000;

/** What a temporary chat refuses: a 409 naming it, so a client can say why. */
export class TemporaryChatError extends ConflictError {
  override name = 'TemporaryChatError';
  constructor(readonly sessionId: string, action: string) {
    super(`This is a temporary chat: it cannot be ${action}. Start a regular chat to keep it.`, { temporary: true, sessionId });
  }
}

/** Throws TemporaryChatError when `session` is temporary; `action` completes "it cannot be …" (shared, forked). */
export function requireSavedChat(session: Pick<ChatSession, 'id' | 'temporary'>, action: string): void {
  if (session.temporary) throw new TemporaryChatError(session.id, action);
}

/**
 * Deletes temporary chats unused for `idleMs` (their messages, files, ratings and links by cascade,
 * their chat runs here), at most `limit` a call, in one statement that walks the partial index
 * `chat_sessions_temporary_idx`. A chat with a run still queued, running or awaiting approval
 * stays, and so does one a send is touching right now (locked rows are skipped; a send moves
 * `updated_at`, which the lock re-checks). @returns how many chats went.
 */
export async function deleteIdleTemporaryChats(db: Database, options: { idleMs?: number; limit?: number } = {}): Promise<number> {
  const [row] = await executeRows<{ deleted: number }>(db, deleteIdleTemporaryChatsStatement(options));
  return row?.deleted ?? 0;
}

/** deleteIdleTemporaryChats' statement (its test explains it to see the index it walks). */
export function deleteIdleTemporaryChatsStatement({ idleMs = TEMPORARY_CHAT_IDLE_MS, limit = 500 }: { idleMs?: number; limit?: number } = {}): SQL {
  const active = sql.join(ACTIVE_RUN_STATUSES.map((status) => sql`${status}`), sql`, `);
  return sql`
    with idle as (
      select s.id from ${chatSessions} s
      where s.temporary and s.updated_at < now() - make_interval(secs => ${idleMs / 1000})
        and not exists (select 1 from ${runs} r where r.session_id = s.id and r.status in (${active}))
      order by s.updated_at
      limit ${limit}
      for update of s skip locked
    ),
    chat_runs as (
      delete from ${runs} where session_id in (select id from idle) and kind = 'chat'
    ),
    deleted as (
      delete from ${chatSessions} where id in (select id from idle) returning id
    )
    select count(*)::int as deleted from deleted`;
}
