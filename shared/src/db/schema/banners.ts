import { boolean, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { BANNER_KINDS } from '../../api-types/banners';
import { timestamps } from './columns';
import { users } from './users';

/** An announcement every signed-in user sees at the top of the app while it is enabled and inside its window. */
export const banners = pgTable('banners', {
  id: text('id').primaryKey(),
  kind: text('kind', { enum: BANNER_KINDS }).notNull(),
  /** Inline Markdown (links, bold), rendered sanitized. */
  text: text('text').notNull(),
  /** Goes up when the text changes: a dismissal holds only for the revision the user dismissed. */
  revision: integer('revision').notNull().default(1),
  dismissible: boolean('dismissible').notNull().default(true),
  /** Shown from (inclusive); null: at once. */
  startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }),
  /** Shown until (exclusive); null: until disabled or deleted. */
  endsAt: timestamp('ends_at', { withTimezone: true, mode: 'date' }),
  enabled: boolean('enabled').notNull().default(true),
  ...timestamps,
});

/** A user closed a banner: kept on the server so it stays closed on their other devices. */
export const bannerDismissals = pgTable(
  'banner_dismissals',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    bannerId: text('banner_id')
      .notNull()
      .references(() => banners.id, { onDelete: 'cascade' }),
    /** The banner's revision when dismissed; a newer text shows again. */
    revision: integer('revision').notNull(),
    dismissedAt: timestamp('dismissed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.bannerId] })],
);
