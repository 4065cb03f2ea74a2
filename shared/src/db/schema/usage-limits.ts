import { bigint, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { USAGE_PERIODS } from '../../api-types/usage-limits';
import { timestamps } from './columns';
import { users } from './users';

/** Everyone's default token limit per period (services/usage-limits); no row: no limit for that period. */
export const usageLimitDefaults = pgTable('usage_limit_defaults', {
  period: text('period', { enum: USAGE_PERIODS }).primaryKey(),
  tokens: bigint('tokens', { mode: 'number' }).notNull(),
  ...timestamps,
});

/** A user's override of a period's default; `tokens` null means unlimited. No row: the default applies. */
export const userUsageLimits = pgTable(
  'user_usage_limits',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    period: text('period', { enum: USAGE_PERIODS }).notNull(),
    tokens: bigint('tokens', { mode: 'number' }),
    ...timestamps,
  },
  (table) => [primaryKey({ columns: [table.userId, table.period] })],
);
