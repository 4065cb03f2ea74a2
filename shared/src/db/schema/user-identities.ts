import { index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';
import { users } from './users';

/**
 * A user's account at an OpenID provider (services/oidc): the provider's `iss` and the `sub` it
 * gives that person, which never changes even when their email does. A sign-in finds the user by
 * this pair first; a user may have several (another provider, or the same person re-created there).
 */
export const userIdentities = pgTable(
  'user_identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The email the provider asserted at the latest sign-in (for admins reading the table; never matched on). */
    email: text('email'),
    createdAt,
    lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.issuer, table.subject] }), index('user_identities_user_idx').on(table.userId)],
);
