import { z } from 'zod';
import { CHAT_EXPORT_JSON_FORMAT } from '../chat-export';
import { importedTitle, keptMessages, type ImportedChat } from './imported-chat';
import { messagePartsSchema } from './parts';

const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), createdAt: z.iso.datetime({ offset: true }).optional(), parts: messagePartsSchema('user') }),
  z.object({ role: z.literal('assistant'), createdAt: z.iso.datetime({ offset: true }).optional(), parts: messagePartsSchema('assistant') }),
]);

/** Our own JSON export (`GET /api/sessions/:id/export?format=json`), read back: the branch it holds becomes the chat. */
export const agentqChatSchema = z
  .object({
    format: z.literal(CHAT_EXPORT_JSON_FORMAT),
    session: z.object({ title: z.string().max(10_000).optional(), createdAt: z.iso.datetime({ offset: true }).optional() }).optional(),
    messages: z.array(message).max(10_000),
  })
  .transform(({ session, messages }, _ctx): ImportedChat => {
    const now = new Date();
    const createdAt = session?.createdAt ? new Date(session.createdAt) : messages[0]?.createdAt ? new Date(messages[0].createdAt) : now;
    return {
      title: importedTitle(session?.title),
      createdAt,
      messages: keptMessages(messages.map((entry) => ({ role: entry.role, createdAt: entry.createdAt ? new Date(entry.createdAt) : createdAt, parts: entry.parts.parts }))),
      droppedParts: messages.reduce((sum, entry) => sum + entry.parts.dropped, 0),
    };
  });
