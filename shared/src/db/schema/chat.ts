import { sql, type SQL } from 'drizzle-orm';
import { boolean, customType, index, jsonb, pgTable, text, timestamp, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { createdAt, timestamps } from './columns';
import { users } from './users';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** A user's folder of chats: a chat is in at most one; deleting a folder moves its chats back to the list. */
export const chatFolders = pgTable(
  'chat_folders',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    ...timestamps,
  },
  (table) => [uniqueIndex('chat_folders_user_name_idx').on(table.userId, table.name)],
);

export const chatSessions = pgTable(
  'chat_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    agentId: text('agent_id'),
    title: text('title').notNull().default('New chat'),
    /** The user named the session: automatic titles leave it alone. */
    titleSetByUser: boolean('title_set_by_user').notNull().default(false),
    /** When the user pinned the chat to the top of their list; null when it is not pinned. */
    pinnedAt: timestamp('pinned_at', { withTimezone: true, mode: 'date' }),
    /** When the user archived the chat: out of the lists, kept whole, until restored; null when it is not. */
    archivedAt: timestamp('archived_at', { withTimezone: true, mode: 'date' }),
    /** The user's folder the chat is filed in; null: in the list of recent chats. */
    folderId: text('folder_id').references((): AnyPgColumn => chatFolders.id, { onDelete: 'set null' }),
    /** A temporary chat: never in the user's lists, search or memory, deleted after a day without use. */
    temporary: boolean('temporary').notNull().default(false),
    ...timestamps,
  },
  (table) => [
    index('chat_sessions_user_idx').on(table.userId, table.updatedAt),
    index('chat_sessions_temporary_idx').on(table.updatedAt).where(sql`${table.temporary}`),
  ],
);

export const MESSAGE_ROLES = ['user', 'assistant'] as const;

/**
 * Messages in the UI parts model of seed 000 §4.1 (`parts` in arrival order), as a tree: a regenerated
 * answer or an edited question is a sibling of the message it replaces, so every version stays
 * reachable. The conversation shown (and sent to the model) is one branch: at each fork the child
 * with the newest `coalesce(selected_at, created_at)`.
 */
export const messages = pgTable(
  'messages',
  {
    id: text('id').primaryKey(),
    sessionId: text('session_id').notNull().references(() => chatSessions.id, { onDelete: 'cascade' }),
    role: text('role', { enum: MESSAGE_ROLES }).notNull(),
    parts: jsonb('parts').$type<unknown[]>().notNull(),
    runId: text('run_id'),
    /**
     * The message this one follows (null: the conversation's first). An assistant message stored
     * without one follows its run's `reply_to_message_id`.
     */
    parentId: text('parent_id'),
    /** When the user switched to this version; the newest choice (or message) at a fork is shown. */
    selectedAt: timestamp('selected_at', { withTimezone: true, mode: 'date' }),
    /** English full-text vector of the text parts (the UI's words, not tool inputs or results). */
    searchVector: tsvector('search_vector').generatedAlwaysAs(
      (): SQL => sql`to_tsvector('english', jsonb_path_query_array(${messages.parts}, 'strict $[*] ? (@.type == "text").text'))`,
    ),
    createdAt,
  },
  (table) => [
    index('messages_session_idx').on(table.sessionId, table.createdAt),
    index('messages_search_idx').using('gin', table.searchVector),
  ],
);

export const FEEDBACK_RATINGS = ['up', 'down'] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];

/**
 * A user's rating of an answer (👍/👎, with an optional comment), one per answer: what tells the
 * admins which answers, agents and models fall short. Goes with the answer or the user.
 */
export const answerFeedback = pgTable(
  'answer_feedback',
  {
    messageId: text('message_id')
      .primaryKey()
      .references(() => messages.id, { onDelete: 'cascade' }),
    sessionId: text('session_id')
      .notNull()
      .references(() => chatSessions.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The run that wrote the answer: its agent, model and events on the admin's run page. */
    runId: text('run_id'),
    rating: text('rating', { enum: FEEDBACK_RATINGS }).notNull(),
    comment: text('comment'),
    ...timestamps,
  },
  (table) => [index('answer_feedback_updated_idx').on(table.updatedAt), index('answer_feedback_session_idx').on(table.sessionId)],
);

/** A message of a shared chat, as the chat export's JSON has it. */
export type SharedChatMessage = { role: (typeof MESSAGE_ROLES)[number]; createdAt: string; parts: unknown[] };

/**
 * A chat shared by link: a copy of the branch it showed when shared (or last updated), so what
 * follows stays private until its owner updates the link. Anyone signed in who has the link reads
 * it. One link per chat; it goes with the chat.
 */
export const sharedChats = pgTable(
  'shared_chats',
  {
    /** The link's secret: 128 random bits, base64url. */
    id: text('id').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .unique()
      .references(() => chatSessions.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    messages: jsonb('messages').$type<SharedChatMessage[]>().notNull(),
    ...timestamps,
  },
  (table) => [index('shared_chats_user_idx').on(table.userId, table.updatedAt)],
);
