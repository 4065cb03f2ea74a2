import { customType, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { chatSessions } from './chat';
import { createdAt } from './columns';
import { users } from './users';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/**
 * Files attached to a chat's messages: images the model sees and text files it reads. A file belongs
 * to one session (uploaded into it before the message that carries it is sent) and goes with it; a
 * message names it by id in a file part (`agentq-file:<id>`), so the bytes are stored once, read by
 * the worker when it calls the model, and never copied into messages or checkpoints.
 */
export const chatFiles = pgTable(
  'chat_files',
  {
    id: text('id').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => chatSessions.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The name it was uploaded under, cleaned of paths and control characters. */
    name: text('name').notNull(),
    /** Checked against the bytes: an image type by its signature, else text/* for valid UTF-8. */
    mediaType: text('media_type').notNull(),
    size: integer('size').notNull(),
    data: bytea('data').notNull(),
    /** What the model reads of a file that is not text itself: a PDF's text, page by page. */
    text: text('text'),
    /**
     * The tool call that made it (`<runId>:<toolCallId>`, e.g. a picture the image-generation tool drew);
     * null for an upload. Its tool card names it, no message's file part does, so the sweep of unsent
     * uploads leaves it: it goes with its chat.
     */
    madeByCall: text('made_by_call'),
    createdAt,
  },
  (table) => [index('chat_files_session_idx').on(table.sessionId)],
);
