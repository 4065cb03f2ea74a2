import { and, asc, eq, gt, inArray, isNull, notExists, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { ACTIVE_RUN_STATUSES, chatSessions, runs } from '../db/schema';
import { listThreadMessages, type ChatSession } from './chat';
import { exportChat, type ChatExportFile, type ChatExportFormat } from './chat-export';
import { chatFileIdOf, pictureOfCall } from './chat-files';
import { tagsOfChat } from './chat-tags';
import { sessionFeedback } from './feedback';

/**
 * A user's chats as a whole (Account → Data): every chat exported in one file, archived at once or
 * deleted at once. A chat whose answer is still running is left out of a delete, as one delete is.
 * Temporary chats are no part of the export or the archive (they are in no list); a delete takes them too.
 */

/** The chat as a file, the branch it shows with the user's ratings (GET /api/sessions/:id/export). */
export async function exportChatFile(db: Database, session: ChatSession, format: ChatExportFormat, exportedAt = new Date()): Promise<ChatExportFile> {
  return (await exportChatWithFiles(db, session, format, exportedAt)).file;
}

/** exportChatFile (with the chat's tags), and the stored files the exported messages carry, each once, in the order they appear. */
export async function exportChatWithFiles(db: Database, session: ChatSession, format: ChatExportFormat, exportedAt = new Date()): Promise<{ file: ChatExportFile; fileIds: string[] }> {
  const [thread, ratings, tags] = await Promise.all([listThreadMessages(db, session.id), sessionFeedback(db, session.id), tagsOfChat(db, session.id)]);
  const file = exportChat({ ...session, tags }, thread, format, exportedAt, new Map(ratings.map(({ messageId, rating, comment }) => [messageId, { rating, comment }])));
  // The files its questions carry, and the pictures its tool calls made (the image-generation tool's `metadata.image`).
  const fileIds = thread.flatMap((message) =>
    (message.parts as { type: string; url?: unknown }[]).flatMap((part) => {
      if (part.type === 'file') return chatFileIdOf(part.url) ?? [];
      const image = pictureOfCall(part);
      return image?.sessionId === session.id ? [image.fileId] : [];
    }),
  );
  return { file, fileIds: [...new Set(fileIds)] };
}

const EXPORT_PAGE = 100;

/**
 * Every chat of the user (archived and filed ones too, temporary ones not), oldest first, as agentq's JSON export of
 * each, read a page of chats at a time so a long history streams. Each string is one chat's JSON
 * document; together, in a JSON array, they are a file the import takes back.
 */
export async function* exportAllChats(db: Database, userId: string, exportedAt = new Date()): AsyncGenerator<string> {
  for await (const session of everyChat(db, userId)) yield (await exportChatFile(db, session, 'json', exportedAt)).body.trimEnd();
}

/** The user's chats that an export holds, oldest first, a page at a time. */
export async function* everyChat(db: Database, userId: string): AsyncGenerator<ChatSession> {
  let after: { createdAt: Date; id: string } | undefined;
  for (;;) {
    const page = await db
      .select()
      .from(chatSessions)
      .where(
        and(
          eq(chatSessions.userId, userId),
          eq(chatSessions.temporary, false),
          after ? or(gt(chatSessions.createdAt, after.createdAt), and(eq(chatSessions.createdAt, after.createdAt), gt(chatSessions.id, after.id))) : undefined,
        ),
      )
      .orderBy(asc(chatSessions.createdAt), asc(chatSessions.id))
      .limit(EXPORT_PAGE);
    yield* page;
    if (page.length < EXPORT_PAGE) return;
    const last = page.at(-1)!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/** Archives every chat of the user not archived yet, temporary ones aside (archiving unpins, as one archive does). @returns how many. */
export async function archiveAllChats(db: Database, userId: string): Promise<number> {
  const archived = await db
    .update(chatSessions)
    .set({ archivedAt: sql`now()`, pinnedAt: null })
    .where(and(eq(chatSessions.userId, userId), eq(chatSessions.temporary, false), isNull(chatSessions.archivedAt)))
    .returning({ id: chatSessions.id });
  return archived.length;
}

/**
 * Deletes every chat of the user, with its messages, files, links and finished runs, but those
 * whose answer is still running (stop it first, as for one chat). @returns how many went, how many stayed.
 */
export async function deleteAllChats(db: Database, userId: string): Promise<{ deleted: number; kept: number }> {
  const running = db
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.sessionId, chatSessions.id), inArray(runs.status, [...ACTIVE_RUN_STATUSES])));
  return db.transaction(async (tx) => {
    const doomed = (await tx.select({ id: chatSessions.id }).from(chatSessions).where(and(eq(chatSessions.userId, userId), notExists(running)))).map((row) => row.id);
    const [total] = await tx.select({ count: sql<number>`count(*)::int` }).from(chatSessions).where(eq(chatSessions.userId, userId));
    if (doomed.length > 0) {
      await tx.delete(runs).where(and(inArray(runs.sessionId, doomed), eq(runs.kind, 'chat')));
      await tx.delete(chatSessions).where(inArray(chatSessions.id, doomed));
    }
    return { deleted: doomed.length, kept: total!.count - doomed.length };
  });
}
