import type { Database } from '../db/client';
import { CHAT_EXPORT_JSON_FORMAT } from './chat-export';
import { listSessionMessages, type ChatSession } from './chat';
import { chatCopySchema, importChats } from './chat-import';
import { tagsOfChat } from './chat-tags';
import { pathTo } from './chat-thread';
import { InvalidInputError, NotFoundError } from './errors';
import { requireSavedChat } from './temporary-chats';

/**
 * A new chat of the session's owner holding the conversation from its first message down to
 * `messageId` (the branch that leads there, whichever is shown), to go another way from there
 * without touching this one. It keeps what a shared chat's copy keeps (text, reasoning, ended tool
 * calls and the questions' files, copied), under the same title and tags, at the top of the list.
 * @throws {NotFoundError} for a message that is not in the session; TemporaryChatError for a temporary chat.
 */
export async function forkChat(db: Database, session: ChatSession, messageId: string): Promise<{ id: string; title: string }> {
  requireSavedChat(session, 'forked');
  const path = pathTo(await listSessionMessages(db, session.id), messageId);
  if (path.length === 0) throw new NotFoundError('Message', messageId);
  const chat = chatCopySchema.parse({
    format: CHAT_EXPORT_JSON_FORMAT,
    session: { title: session.title, createdAt: new Date().toISOString(), tags: await tagsOfChat(db, session.id) },
    messages: path.map((message) => ({ role: message.role, createdAt: message.createdAt.toISOString(), parts: message.parts })),
  });
  const { items } = await importChats(db, session.userId, [chat], { filesFrom: session.id, activeNow: true });
  // Nothing kept (an answer stopped before its first word, on a question of nothing): nothing to go on from.
  if (!items[0]) throw new InvalidInputError('Nothing to copy up to this message yet', [{ path: ['messageId'], message: 'Nothing to copy' }]);
  return { id: items[0].id, title: items[0].title };
}
