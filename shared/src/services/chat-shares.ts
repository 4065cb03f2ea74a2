import { randomBytes } from 'node:crypto';
import { desc, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { sharedChats, users, type SharedChatMessage } from '../db/schema';
import { CHAT_EXPORT_JSON_FORMAT } from './chat-export';
import { listThreadMessages, type ChatSession } from './chat';
import { chatImportBodySchema, importChats } from './chat-import';
import { InvalidInputError, NotFoundError } from './errors';

/**
 * Chats shared by link: the owner makes (or updates) a copy of the branch the chat shows, and anyone
 * signed in with the link reads that copy, or saves it to their own chats. The copy keeps what an
 * import keeps (text, reasoning, ended tool calls: chat-import/parts.ts), since a reader's saved copy
 * reaches their model; approvals waiting and provider data stay in the owner's chat.
 */

export type ChatShare = typeof sharedChats.$inferSelect;
/** A share as its owner manages it: where the link points and what it holds, without the copy. */
export type ChatShareSummary = Omit<ChatShare, 'messages' | 'userId'> & { messageCount: number };
/** A share as a reader sees it. */
export type SharedChatView = { id: string; title: string; sharedBy: string; own: boolean; createdAt: Date; updatedAt: Date; messages: SharedChatMessage[] };

const newShareId = () => randomBytes(16).toString('base64url');

function summary(share: ChatShare): ChatShareSummary {
  const { messages, userId: _, ...rest } = share;
  return { ...rest, messageCount: messages.length };
}

/** The chat's shown branch as a share holds it. @throws {InvalidInputError} when there is nothing to share yet. */
async function snapshot(db: Database, session: ChatSession): Promise<SharedChatMessage[]> {
  const rows = await listThreadMessages(db, session.id);
  const [chat] = chatImportBodySchema.parse({
    format: CHAT_EXPORT_JSON_FORMAT,
    messages: rows.map((row) => ({ role: row.role, createdAt: row.createdAt.toISOString(), parts: row.parts })),
  });
  if (!chat || chat.messages.length === 0) throw new InvalidInputError('Nothing to share yet: the chat has no messages');
  return chat.messages.map((message) => ({ role: message.role, createdAt: message.createdAt.toISOString(), parts: message.parts }));
}

/** Shares the chat as it is now, or brings its link up to date (the link stays the same). */
export async function shareChat(db: Database, session: ChatSession): Promise<{ share: ChatShareSummary; created: boolean }> {
  const messages = await snapshot(db, session);
  const id = newShareId();
  const [share] = await db
    .insert(sharedChats)
    .values({ id, sessionId: session.id, userId: session.userId, title: session.title, messages })
    .onConflictDoUpdate({ target: sharedChats.sessionId, set: { title: session.title, messages, updatedAt: sql`now()` } })
    .returning();
  return { share: summary(share!), created: share!.id === id };
}

export async function getChatShare(db: Database, session: ChatSession): Promise<ChatShareSummary> {
  const [share] = await db.select().from(sharedChats).where(eq(sharedChats.sessionId, session.id));
  if (!share) throw new NotFoundError('Shared link');
  return summary(share);
}

/** Takes the link down: it no longer opens. @returns false when the chat had none. */
export async function unshareChat(db: Database, session: ChatSession): Promise<boolean> {
  return (await db.delete(sharedChats).where(eq(sharedChats.sessionId, session.id)).returning({ id: sharedChats.id })).length > 0;
}

/** The user's shared links, most recently updated first. */
export async function listChatShares(db: Database, userId: string): Promise<ChatShareSummary[]> {
  return db
    .select({ id: sharedChats.id, sessionId: sharedChats.sessionId, title: sharedChats.title, createdAt: sharedChats.createdAt, updatedAt: sharedChats.updatedAt, messageCount: sql<number>`jsonb_array_length(${sharedChats.messages})::int` })
    .from(sharedChats)
    .where(eq(sharedChats.userId, userId))
    .orderBy(desc(sharedChats.updatedAt), desc(sharedChats.id));
}

/** A shared chat for any signed-in reader. @throws {NotFoundError} for a link that does not (or no longer) exist. */
export async function readSharedChat(db: Database, shareId: string, readerId: string): Promise<SharedChatView> {
  const [row] = await db
    .select({ share: sharedChats, sharedBy: users.name })
    .from(sharedChats)
    .innerJoin(users, eq(users.id, sharedChats.userId))
    .where(eq(sharedChats.id, shareId));
  if (!row) throw new NotFoundError('Shared chat', shareId);
  const { share, sharedBy } = row;
  return { id: share.id, title: share.title, sharedBy, own: share.userId === readerId, createdAt: share.createdAt, updatedAt: share.updatedAt, messages: share.messages };
}

/** Saves a shared chat as a chat of the reader's own, to go on with. */
export async function copySharedChat(db: Database, shareId: string, readerId: string): Promise<{ id: string; title: string }> {
  const shared = await readSharedChat(db, shareId, readerId);
  const chats = chatImportBodySchema.parse({ format: CHAT_EXPORT_JSON_FORMAT, session: { title: shared.title }, messages: shared.messages });
  const { items } = await importChats(db, readerId, chats);
  return { id: items[0]!.id, title: items[0]!.title };
}
