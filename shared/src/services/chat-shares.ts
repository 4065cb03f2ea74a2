import { randomBytes } from 'node:crypto';
import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { chatFiles, sharedChats, users, type SharedChatMessage } from '../db/schema';
import { CHAT_EXPORT_JSON_FORMAT } from './chat-export';
import { listThreadMessages, type ChatSession } from './chat';
import { chatFileIdOf, chatFileUrl, type ChatFileWithData } from './chat-files';
import { chatCopySchema, importChats } from './chat-import';
import { InvalidInputError, NotFoundError } from './errors';
import { requireSavedChat } from './temporary-chats';

/**
 * Chats shared by link: the owner makes (or updates) a copy of the branch the chat shows, and anyone
 * signed in with the link reads that copy, or saves it to their own chats. The copy keeps what an
 * import keeps (text, reasoning, ended tool calls: chat-import/parts.ts), since a reader's saved copy
 * reaches their model, and the files its questions carried: a reader fetches those the share names
 * (getSharedChatFile), and a saved copy gets copies of them. Approvals waiting and provider data
 * stay in the owner's chat.
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
  const chat = chatCopySchema.parse({
    format: CHAT_EXPORT_JSON_FORMAT,
    messages: rows.map((row) => ({ role: row.role, createdAt: row.createdAt.toISOString(), parts: row.parts })),
  });
  if (chat.messages.length === 0) throw new InvalidInputError('Nothing to share yet: the chat has no messages');
  const kept = await storedFileUrls(db, session.id, chat.messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'file' ? [part.url] : []))));
  return chat.messages.map((message) => ({
    role: message.role,
    createdAt: message.createdAt.toISOString(),
    parts: message.parts.filter((part) => part.type !== 'file' || kept.has(part.url)),
  }));
}

/** Which of `urls` name files stored with session `sessionId`: a share names no other. */
async function storedFileUrls(db: Database, sessionId: string, urls: string[]): Promise<Set<string>> {
  const ids = urls.flatMap((url) => chatFileIdOf(url) ?? []);
  if (ids.length === 0) return new Set();
  const rows = await db.select({ id: chatFiles.id }).from(chatFiles).where(and(eq(chatFiles.sessionId, sessionId), inArray(chatFiles.id, [...new Set(ids)])));
  return new Set(rows.map((row) => chatFileUrl(row.id)));
}

/** Shares the chat as it is now, or brings its link up to date (the link stays the same); a temporary chat is refused (409). */
export async function shareChat(db: Database, session: ChatSession): Promise<{ share: ChatShareSummary; created: boolean }> {
  requireSavedChat(session, 'shared');
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

/**
 * A file a shared chat's question carried, or a picture one of its tool calls made, for any signed-in
 * reader of the link: only a file the share names (files sent after it was last updated stay
 * private). @throws {NotFoundError} otherwise.
 */
export async function getSharedChatFile(db: Database, shareId: string, fileId: string): Promise<ChatFileWithData> {
  // Named by a question's file part, or shown by a tool call's output (a picture the call made).
  const contains = (parts: unknown[]) => sql`${sharedChats.messages} @> ${JSON.stringify([{ parts }])}::jsonb`;
  const named = or(contains([{ type: 'file', url: chatFileUrl(fileId) }]), contains([{ output: { metadata: { image: { fileId } } } }]));
  const [row] = await db
    .select({ file: chatFiles })
    .from(sharedChats)
    .innerJoin(chatFiles, and(eq(chatFiles.sessionId, sharedChats.sessionId), eq(chatFiles.id, fileId)))
    .where(and(eq(sharedChats.id, shareId), named));
  if (!row) throw new NotFoundError('File', fileId);
  return row.file;
}

/** Saves a shared chat as a chat of the reader's own, to go on with; its files are copied with it. */
export async function copySharedChat(db: Database, shareId: string, readerId: string): Promise<{ id: string; title: string }> {
  const [share] = await db.select({ sessionId: sharedChats.sessionId, title: sharedChats.title, messages: sharedChats.messages }).from(sharedChats).where(eq(sharedChats.id, shareId));
  if (!share) throw new NotFoundError('Shared chat', shareId);
  const chat = chatCopySchema.parse({ format: CHAT_EXPORT_JSON_FORMAT, session: { title: share.title }, messages: share.messages });
  const { items } = await importChats(db, readerId, [chat], { filesFrom: share.sessionId });
  return { id: items[0]!.id, title: items[0]!.title };
}
