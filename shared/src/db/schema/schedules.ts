import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { agents } from './agents';
import { chatSessions } from './chat';
import { timestamps } from './columns';
import { llmModels } from './llm-models';
import { users } from './users';

/** Where a schedule's answers land: a new chat each time, or one chat it keeps appending to. */
export const SCHEDULE_TARGETS = ['new-chat', 'same-chat'] as const;
export type ScheduleTarget = (typeof SCHEDULE_TARGETS)[number];

/**
 * A prompt a user has the platform send on a cron schedule (like ChatGPT's Tasks). PostgreSQL is the
 * source of truth; BullMQ holds one Job Scheduler per enabled row (id = the schedule's id), which the
 * reconciler restores if Redis loses it.
 */
export const schedules = pgTable(
  'schedules',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    prompt: text('prompt').notNull(),
    agentId: text('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    modelId: text('model_id').references(() => llmModels.id, { onDelete: 'set null' }),
    /** 5 fields, or 6 with seconds first, as cron-parser (BullMQ's) reads them. */
    cron: text('cron').notNull(),
    /** IANA time zone the cron is read in. */
    timezone: text('timezone').notNull().default('UTC'),
    enabled: boolean('enabled').notNull().default(true),
    target: text('target', { enum: SCHEDULE_TARGETS }).notNull().default('new-chat'),
    /** The chat a `same-chat` schedule appends to, created on its first fire. */
    sessionId: text('session_id').references(() => chatSessions.id, { onDelete: 'set null' }),
    lastRunAt: timestamp('last_run_at', { withTimezone: true, mode: 'date' }),
    /** No foreign key: deleting runs (a chat, all chats) should not check this table; a gone run reads as none. */
    lastRunId: text('last_run_id'),
    /** The last fire that started no run, and why (the chat's previous run still going, the user disabled…). */
    lastSkippedAt: timestamp('last_skipped_at', { withTimezone: true, mode: 'date' }),
    lastSkipReason: text('last_skip_reason'),
    ...timestamps,
  },
  (table) => [index('schedules_user_idx').on(table.userId, table.createdAt), index('schedules_enabled_idx').on(table.enabled)],
);
