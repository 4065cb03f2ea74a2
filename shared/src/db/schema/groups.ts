import { index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, timestamps } from './columns';
import { users } from './users';

/**
 * A group of users (Admin → Groups): models and agents limited to groups (their `group_ids`) are
 * offered to, and answer, only members of one of them, and admins.
 */
export const userGroups = pgTable('user_groups', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  description: text('description').notNull().default(''),
  ...timestamps,
});

export const userGroupMembers = pgTable(
  'user_group_members',
  {
    groupId: text('group_id').notNull().references(() => userGroups.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt,
  },
  (table) => [primaryKey({ columns: [table.groupId, table.userId] }), index('user_group_members_user_idx').on(table.userId)],
);
