import { timestamp } from 'drizzle-orm/pg-core';

/** created_at / updated_at pair used by most tables. */
export const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date()),
};

export const createdAt = timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
