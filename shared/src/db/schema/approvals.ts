import { boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { chatSessions } from './chat';
import { createdAt } from './columns';
import { runs } from './runs';

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const approvals = pgTable(
  'approvals',
  {
    id: text('id').primaryKey(),
    runId: text('run_id').notNull().references(() => runs.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    toolCallId: text('tool_call_id').notNull(),
    toolId: text('tool_id'),
    toolName: text('tool_name').notNull(),
    input: jsonb('input').notNull(),
    /** Input as edited by the approver; the original stays in `input`. */
    editedInput: jsonb('edited_input'),
    /** sha256 of tool name + canonical input: the decision applies to exactly this call. */
    inputHash: text('input_hash').notNull(),
    status: text('status', { enum: APPROVAL_STATUSES }).notNull().default('pending'),
    reason: text('reason'),
    remember: boolean('remember').notNull().default(false),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    decidedBy: text('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    createdAt,
  },
  (table) => [
    uniqueIndex('approvals_run_call_idx').on(table.runId, table.toolCallId),
    index('approvals_user_status_idx').on(table.userId, table.status),
  ],
);

/** "Remember for this session": later calls of the tool in the session need no approval. Gone with the chat. */
export const approvalGrants = pgTable(
  'approval_grants',
  {
    sessionId: text('session_id')
      .notNull()
      .references(() => chatSessions.id, { onDelete: 'cascade' }),
    toolName: text('tool_name').notNull(),
    grantedBy: text('granted_by').notNull(),
    createdAt,
  },
  (table) => [primaryKey({ columns: [table.sessionId, table.toolName] })],
);
