import { z } from 'zod';
import type { Database } from '../../db/client';
import { chatSessions, messages } from '../../db/schema';
import { newId } from '../../ids';
import { CHAT_EXPORT_JSON_FORMAT } from '../chat-export';
import { copyChatFiles, pictureOfCall, type ChatFileCopy } from '../chat-files/chat-files';
import { tagImportedChats } from '../chat-tags';
import { chatFileIdOf, chatFileUrl } from '../chat-files/judge-upload';
import { agentqChatSchema } from './agentq-json';
import { chatgptConversationSchema } from './chatgpt-conversation';
import type { ImportedChat } from './imported-chat';
import type { ImportedPart } from './parts';

/** Chats one request may import; a bigger file is sent in several (the web page does). */
export const CHATS_PER_IMPORT = 100;

const NOT_A_CHAT = `Not a chat export: expected agentq's JSON export ("format": "${CHAT_EXPORT_JSON_FORMAT}") or a ChatGPT conversation (from conversations.json, with "mapping")`;

/** One chat of the file, told apart by its shape. */
const chatFileSchema = z.unknown().transform((value, ctx): ImportedChat => {
  const shape = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const schema = shape?.format === CHAT_EXPORT_JSON_FORMAT ? agentqChatSchema : shape && 'mapping' in shape ? chatgptConversationSchema : undefined;
  if (!schema) {
    ctx.addIssue({ code: 'custom', message: NOT_A_CHAT });
    return z.NEVER;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  }
  return parsed.data;
});

/**
 * `POST /api/sessions/import`: one chat (agentq's JSON export, or one ChatGPT conversation) or a
 * list of them (ChatGPT's whole `conversations.json`, up to CHATS_PER_IMPORT).
 */
export const chatImportBodySchema = z
  .unknown()
  .transform((body) => (Array.isArray(body) ? body : [body]))
  .pipe(z.array(chatFileSchema).min(1, 'The file holds no chats').max(CHATS_PER_IMPORT, `Import at most ${CHATS_PER_IMPORT} chats at a time`));

export type ChatImportResult = {
  /** The chats made, in the file's order. */
  items: { id: string; title: string; messages: number; droppedParts: number }[];
  /** Chats of the file with nothing to import (no question or answer with text), by their place in it. */
  skipped: { index: number; title: string }[];
};

const ROWS_PER_INSERT = 1_000;

/**
 * Stores the chats as the user's sessions, named as in the file (automatic titles leave them
 * alone), each message following the one before it, at its own time; the chat's last activity is
 * its last message's. All or nothing: one transaction. The file parts a shared chat's copy keeps
 * name files of session `filesFrom` (the shared chat's), each copied into the new chat under a
 * new id; without `filesFrom` there are none (an import's schema leaves files out). Tags the file
 * gives a chat become the importer's tags (a name they have in another case is that tag). `activeNow`
 * puts the chats at the top of the list (a fork: made now, whatever its messages' times).
 */
export async function importChats(db: Database, userId: string, chats: ImportedChat[], options: { filesFrom?: string; activeNow?: boolean } = {}): Promise<ChatImportResult> {
  const result: ChatImportResult = { items: [], skipped: [] };
  const sessionRows: (typeof chatSessions.$inferInsert)[] = [];
  const messageRows: (typeof messages.$inferInsert)[] = [];
  const fileCopies: ChatFileCopy[] = [];
  const tagLinks: { sessionId: string; names: string[] }[] = [];
  chats.forEach((chat, index) => {
    if (chat.messages.length === 0) {
      result.skipped.push({ index, title: chat.title });
      return;
    }
    const sessionId = newId('chatSession');
    const lastActive = options.activeNow ? new Date() : chat.messages.at(-1)!.createdAt;
    sessionRows.push({ id: sessionId, userId, title: chat.title, titleSetByUser: true, createdAt: chat.createdAt < lastActive ? chat.createdAt : lastActive, updatedAt: lastActive });
    if (chat.tags?.length) tagLinks.push({ sessionId, names: chat.tags });
    let parentId: string | null = null;
    for (const message of chat.messages) {
      const id = newId('message');
      const parts = message.parts.flatMap((part, index): ImportedPart[] => {
        // A call's id is the file's: made unique here, so it is never taken for another message's or a later run's.
        if ('toolCallId' in part) {
          const toolCallId = `${id}-${index}`;
          return [{ ...withCopiedPicture(part, { from: options.filesFrom, sessionId, toolCallId, copies: fileCopies }), toolCallId }];
        }
        if (part.type !== 'file') return [part];
        const fromId = chatFileIdOf(part.url);
        if (!options.filesFrom || !fromId) return [];
        const copy = { fromId, toId: newId('file'), sessionId };
        fileCopies.push(copy);
        return [{ ...part, url: chatFileUrl(copy.toId) }];
      });
      messageRows.push({ id, sessionId, role: message.role, parts, parentId, createdAt: message.createdAt });
      parentId = id;
    }
    result.items.push({ id: sessionId, title: chat.title, messages: chat.messages.length, droppedParts: chat.droppedParts });
  });
  if (sessionRows.length === 0) return result;
  await db.transaction(async (tx) => {
    await tx.insert(chatSessions).values(sessionRows);
    await tagImportedChats(tx, userId, tagLinks);
    if (options.filesFrom && fileCopies.length > 0) await copyChatFiles(tx, { fromSessionId: options.filesFrom, userId, copies: fileCopies });
    for (let start = 0; start < messageRows.length; start += ROWS_PER_INSERT) await tx.insert(messages).values(messageRows.slice(start, start + ROWS_PER_INSERT));
  });
  return result;
}

/**
 * A tool call whose output shows a picture it made (the image-generation tool's `metadata.image`, a
 * file of the chat no message part names): the file is copied with the call, which then names the
 * copy. Without a chat to copy from (a file's import) or for a picture of another chat, the picture
 * is left out of the output rather than pointing at a file the new chat does not hold.
 */
function withCopiedPicture<Part extends ImportedPart>(part: Part, target: { from?: string; sessionId: string; toolCallId: string; copies: ChatFileCopy[] }): Part {
  const image = pictureOfCall(part);
  if (!image) return part;
  const output = (part as { output: { metadata: Record<string, unknown> } }).output;
  const { image: _image, ...metadata } = output.metadata;
  if (!target.from || image.sessionId !== target.from) return { ...part, output: { ...output, metadata } };
  const toId = newId('file');
  target.copies.push({ fromId: image.fileId, toId, sessionId: target.sessionId, madeByCall: target.toolCallId });
  return { ...part, output: { ...output, metadata: { ...metadata, image: { ...image, sessionId: target.sessionId, fileId: toId } } } };
}
