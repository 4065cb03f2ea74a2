import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { users } from './users';

/**
 * A user's saved prompts: text they send often, called up in the composer by typing `/command`.
 * `{{name}}` in the content marks what to fill in each time.
 */
export const prompts = pgTable(
  'prompts',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** What follows the `/`: lower-case letters, digits and dashes, one per user. */
    command: text('command').notNull(),
    title: text('title').notNull(),
    content: text('content').notNull(),
    ...timestamps,
  },
  (table) => [uniqueIndex('prompts_user_command_idx').on(table.userId, table.command), index('prompts_user_idx').on(table.userId, table.updatedAt)],
);
