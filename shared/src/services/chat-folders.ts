import { and, asc, count, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { chatFolders, chatSessions } from '../db/schema';
import { newId } from '../ids';
import { ConflictError, InvalidInputError, isUniqueViolation, NotFoundError } from './errors';

/**
 * A user's folders of chats. Every query is scoped to the acting user, so another user's folder is
 * indistinguishable from a missing one. A chat is filed with PATCH /api/sessions/:id {folderId}.
 */

export type ChatFolder = typeof chatFolders.$inferSelect;
/** A folder as the sidebar lists it: with how many chats it holds (archived ones left out). */
export type ChatFolderSummary = Omit<ChatFolder, 'userId'> & { chatCount: number };

export const chatFolderInputSchema = z.object({
  name: z.string().trim().min(1, 'Give the folder a name').max(100, 'Keep the name under 100 characters'),
});
export type ChatFolderInput = z.infer<typeof chatFolderInputSchema>;

const nameTaken = (name: string) => new ConflictError(`You already have a folder named ${name}`, { name });

/** The user's folders, by name, with their chat counts. */
export async function listChatFolders(db: Database, userId: string): Promise<ChatFolderSummary[]> {
  const chats = db
    .select({ folderId: chatSessions.folderId, chatCount: count().as('chat_count') })
    .from(chatSessions)
    .where(and(eq(chatSessions.userId, userId), isNull(chatSessions.archivedAt)))
    .groupBy(chatSessions.folderId)
    .as('chats');
  const rows = await db
    .select({ id: chatFolders.id, name: chatFolders.name, createdAt: chatFolders.createdAt, updatedAt: chatFolders.updatedAt, chatCount: chats.chatCount })
    .from(chatFolders)
    .leftJoin(chats, eq(chats.folderId, chatFolders.id))
    .where(eq(chatFolders.userId, userId))
    .orderBy(asc(chatFolders.name));
  return rows.map((row) => ({ ...row, chatCount: Number(row.chatCount ?? 0) }));
}

export async function createChatFolder(db: Database, userId: string, input: ChatFolderInput): Promise<ChatFolderSummary> {
  try {
    const [row] = await db.insert(chatFolders).values({ id: newId('folder'), userId, name: input.name }).returning();
    const { userId: _, ...folder } = row!;
    return { ...folder, chatCount: 0 };
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name);
    throw error;
  }
}

export async function renameChatFolder(db: Database, userId: string, id: string, input: ChatFolderInput): Promise<ChatFolder> {
  try {
    const [row] = await db.update(chatFolders).set({ name: input.name }).where(and(eq(chatFolders.id, id), eq(chatFolders.userId, userId))).returning();
    if (!row) throw new NotFoundError('Folder', id);
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name);
    throw error;
  }
}

/** Deletes the folder; its chats go back to the list of recent chats (the foreign key sets them free). */
export async function deleteChatFolder(db: Database, userId: string, id: string): Promise<void> {
  const [row] = await db.delete(chatFolders).where(and(eq(chatFolders.id, id), eq(chatFolders.userId, userId))).returning({ id: chatFolders.id });
  if (!row) throw new NotFoundError('Folder', id);
}

/** Checks that folder `id` is the user's, for filing a chat in it: a 400 naming `folderId` otherwise. */
export async function requireOwnFolder(db: Database, userId: string, id: string): Promise<void> {
  const [row] = await db.select({ id: chatFolders.id }).from(chatFolders).where(and(eq(chatFolders.id, id), eq(chatFolders.userId, userId)));
  if (!row) throw new InvalidInputError(`No folder ${id}`, [{ path: ['folderId'], message: 'No such folder' }]);
}
