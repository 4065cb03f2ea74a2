import { sql } from 'drizzle-orm';
import { index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { chatSessions } from './chat';
import { createdAt } from './columns';
import { users } from './users';

/**
 * A user's tag of chats: a short label, one per name whatever its case (spelled as first typed).
 * A tag no chat carries is deleted when the user's tags change (chat-tags.ts); lists never show one.
 */
export const chatTags = pgTable(
  'chat_tags',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt,
  },
  (table) => [uniqueIndex('chat_tags_user_name_idx').on(table.userId, sql`lower(${table.name})`)],
);

/** A tag on a chat: it goes with the chat or the tag. */
export const chatSessionTags = pgTable(
  'chat_session_tags',
  {
    sessionId: text('session_id')
      .notNull()
      .references(() => chatSessions.id, { onDelete: 'cascade' }),
    tagId: text('tag_id')
      .notNull()
      .references(() => chatTags.id, { onDelete: 'cascade' }),
  },
  (table) => [primaryKey({ columns: [table.sessionId, table.tagId] }), index('chat_session_tags_tag_idx').on(table.tagId)],
);
