import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { users } from './users';

/**
 * A user's saved prompts: text they send often, called up in the composer by typing `/command`.
 * `{{name}}` in the content marks what to fill in each time. An admin may share one: with everyone,
 * or with the members of some user groups, who see it read-only in their `/` menu.
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
    /** Offered to other users too (only while its owner is an admin); false: the owner's alone. */
    shared: boolean('shared').notNull().default(false),
    /** Whom a shared prompt is for: the user groups (user_groups.id) whose members see it; empty is everyone. */
    groupIds: text('group_ids').array().notNull().default(sql`'{}'::text[]`),
    ...timestamps,
  },
  (table) => [uniqueIndex('prompts_user_command_idx').on(table.userId, table.command), index('prompts_user_idx').on(table.userId, table.updatedAt), index('prompts_shared_idx').on(table.shared).where(sql`${table.shared}`)],
);
