import { z } from 'zod';
import { chatTagNameSchema, MAX_TAGS_PER_CHAT, sameTag } from '../../api-types/chat-tags';
import { CHAT_EXPORT_JSON_FORMAT } from '../chat-export';
import { importedTitle, keptMessages, type ImportedChat } from './imported-chat';
import { messagePartsSchema, type KeptPartsOptions } from './parts';

const messageSchema = (options: KeptPartsOptions) =>
  z.discriminatedUnion('role', [
    z.object({ role: z.literal('user'), createdAt: z.iso.datetime({ offset: true }).optional(), parts: messagePartsSchema('user', options) }),
    z.object({ role: z.literal('assistant'), createdAt: z.iso.datetime({ offset: true }).optional(), parts: messagePartsSchema('assistant', options) }),
  ]);

/** A chat in our JSON export's shape; a shared chat's copy keeps its files (`keepFiles`), a file's does not. */
export const agentqChat = (options: KeptPartsOptions) =>
  z
    .object({
      format: z.literal(CHAT_EXPORT_JSON_FORMAT),
      session: z
        .object({ title: z.string().max(10_000).optional(), createdAt: z.iso.datetime({ offset: true }).optional(), tags: z.array(z.unknown()).max(1_000).optional() })
        .optional(),
      messages: z.array(messageSchema(options)).max(10_000),
    })
    .transform(({ session, messages }, _ctx): ImportedChat => {
      const now = new Date();
      const createdAt = session?.createdAt ? new Date(session.createdAt) : messages[0]?.createdAt ? new Date(messages[0].createdAt) : now;
      return {
        title: importedTitle(session?.title),
        createdAt,
        messages: keptMessages(messages.map((entry) => ({ role: entry.role, createdAt: entry.createdAt ? new Date(entry.createdAt) : createdAt, parts: entry.parts.parts }))),
        droppedParts: messages.reduce((sum, entry) => sum + entry.parts.dropped, 0),
        tags: importedTags(session?.tags ?? []),
      };
    });

/** The file's tags that are valid names, each once, as many as a chat carries: a hand-edited file loses what a chat cannot have rather than failing. */
function importedTags(tags: unknown[]): string[] {
  const kept: string[] = [];
  for (const tag of tags) {
    const parsed = chatTagNameSchema.safeParse(tag);
    if (parsed.success && !kept.some((name) => sameTag(name, parsed.data))) kept.push(parsed.data);
  }
  return kept.slice(0, MAX_TAGS_PER_CHAT);
}

/** Our own JSON export (`GET /api/sessions/:id/export?format=json`), read back: the branch it holds becomes the chat. */
export const agentqChatSchema = agentqChat({});

/** A chat copied within agentq (a shared link, its saved copy, a fork): an import's parts and the questions' stored files. */
export const chatCopySchema = agentqChat({ keepFiles: true });
