import { integer, jsonb, pgTable, primaryKey, text, timestamp, varchar } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';

import { TOOL_EFFECTS } from '../../tools/define-tool-type';

/**
 * started: written before the call runs; completed: its result is stored; interrupted: a worker
 * stopped it (shutdown) or found it started by a crashed attempt and did not repeat it.
 */
export const TOOL_CALL_STATES = ['started', 'completed', 'interrupted'] as const;
export type ToolCallState = (typeof TOOL_CALL_STATES)[number];

/** The tool-call journal: one row per (run, tool call), so a resumed run knows what already ran. */
export const toolCalls = pgTable(
  'tool_calls',
  {
    runId: text('run_id').notNull(),
    toolCallId: text('tool_call_id').notNull(),
    toolId: text('tool_id'),
    toolSlug: varchar('tool_slug', { length: 100 }).notNull(),
    input: jsonb('input'),
    effect: varchar('effect', { length: 20, enum: TOOL_EFFECTS }).notNull(),
    state: varchar('state', { length: 20, enum: TOOL_CALL_STATES }).notNull(),
    /** 1 for the first attempt; a re-execution after a crash counts up. */
    attempt: integer('attempt').notNull().default(1),
    /** The ToolResult once completed (an interrupted call's error value included). */
    result: jsonb('result'),
    createdAt,
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [primaryKey({ columns: [table.runId, table.toolCallId] })],
);
