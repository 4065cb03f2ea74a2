import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, timestamps } from './columns';
import { users } from './users';

export const chatSessions = pgTable(
  'chat_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    agentId: text('agent_id'),
    title: text('title').notNull().default('New chat'),
    ...timestamps,
  },
  (table) => [index('chat_sessions_user_idx').on(table.userId, table.updatedAt)],
);

export const MESSAGE_ROLES = ['user', 'assistant'] as const;

/** Messages in the UI parts model of seed 000 §4.1 (`parts` in arrival order). */
export const messages = pgTable(
  'messages',
  {
    id: text('id').primaryKey(),
    sessionId: text('session_id').notNull().references(() => chatSessions.id, { onDelete: 'cascade' }),
    role: text('role', { enum: MESSAGE_ROLES }).notNull(),
    parts: jsonb('parts').$type<unknown[]>().notNull(),
    runId: text('run_id'),
    createdAt,
  },
  (table) => [index('messages_session_idx').on(table.sessionId, table.createdAt)],
);
