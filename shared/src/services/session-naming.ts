import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { chatSessions, messages } from '../db/schema';
import { messageText } from './message-text';

/** The run of a chat's first question, as the worker holds it. */
type NamingRun = { id: string; sessionId: string | null; replyToMessageId: string | null };

/**
 * The text of the question `run` answers when the run may have its model name the chat: the
 * question is the chat's first (no parent) and new with this run (not a regenerate), and the user
 * has not named the chat. Null otherwise, or when the question has no text (files alone).
 */
export async function questionToName(db: Database, run: NamingRun): Promise<string | null> {
  if (!run.sessionId || !run.replyToMessageId) return null;
  const [row] = await db
    .select({ parts: messages.parts })
    .from(messages)
    .innerJoin(chatSessions, eq(chatSessions.id, messages.sessionId))
    .where(and(eq(messages.id, run.replyToMessageId), eq(messages.sessionId, run.sessionId), eq(messages.runId, run.id), isNull(messages.parentId), eq(chatSessions.titleSetByUser, false)));
  if (!row) return null;
  return messageText(row.parts).trim() || null;
}

/**
 * Gives the session the title its model chose, unless the user has named it meanwhile (the
 * condition is in the UPDATE, so a rename that lands first always wins). Leaves `updated_at` alone:
 * naming a chat is not activity. Returns whether the title was stored.
 */
export async function storeModelSessionTitle(db: Database, sessionId: string, title: string): Promise<boolean> {
  const updated = await db
    .update(chatSessions)
    .set({ title, updatedAt: sql`${chatSessions.updatedAt}` })
    .where(and(eq(chatSessions.id, sessionId), eq(chatSessions.titleSetByUser, false)))
    .returning({ id: chatSessions.id });
  return updated.length > 0;
}
