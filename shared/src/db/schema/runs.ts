import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, numeric, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { RunTimeline } from '../../events/run-timeline';
import { timestamps } from './columns';
import { users } from './users';

/** Durable progress of a chat run: enough for another worker to continue without redoing work. */
export type RunCheckpoint = {
  /** Model messages (AI SDK ModelMessage JSON) up to the last completed step, history included. */
  messages: unknown[];
  /** Steps completed so far (counts against the agent's step limit). */
  steps: number;
  /** Approval requests the last step ended with; the run is parked until each is decided or expires. */
  awaitingApprovals?: { approvalId: string; sdkApprovalId: string; toolCallId: string }[];
  usage?: Record<string, number | undefined>;
  /** Sequence number of the last event published, so numbering continues even if Redis lost the stream. */
  lastSeq?: number;
  /** The assistant message so far (UI parts): what a resumed run rebuilds from when the stream is gone. */
  parts?: unknown[];
  /** The last model step ended and is stored here: a resumed run goes straight to finishing. */
  done?: boolean;
  finishReason?: string;
  hitStepLimit?: boolean;
  /** Per-step timings (model latency, tokens, tool calls, approval waits) for the operators' run view. */
  timeline?: RunTimeline;
};

export const RUN_KINDS = ['chat', 'tool'] as const;
export const RUN_STATUSES = ['queued', 'running', 'awaiting_approval', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const ACTIVE_RUN_STATUSES = ['queued', 'running', 'awaiting_approval'] as const satisfies readonly RunStatus[];

/** One chat turn or one standalone tool execution. */
export const runs = pgTable(
  'runs',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: RUN_KINDS }).notNull(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    sessionId: text('session_id'),
    /** A chat run's question: the user message it answers (a regenerated answer reuses an old one). */
    replyToMessageId: text('reply_to_message_id'),
    agentId: text('agent_id'),
    modelId: text('model_id'),
    toolId: text('tool_id'),
    status: text('status', { enum: RUN_STATUSES }).notNull().default('queued'),
    /** Request options (enableTools, enableThinking, systemPrompt, the user's instructions) or a tool execution's input. */
    options: jsonb('options').$type<Record<string, unknown>>().notNull().default({}),
    finishReason: text('finish_reason'),
    steps: integer('steps').notNull().default(0),
    usage: jsonb('usage').$type<Record<string, unknown>>(),
    /** A chat run's cost in US dollars at its model's prices when it ended (`usage` × prices per million tokens); null when the model had no price. */
    cost: numeric('cost', { precision: 18, scale: 8, mode: 'number' }),
    hitStepLimit: boolean('hit_step_limit').notNull().default(false),
    error: text('error'),
    /** Model messages after the last completed step; a retried job continues from here. */
    checkpoint: jsonb('checkpoint').$type<RunCheckpoint>(),
    /** A standalone tool execution's ToolResult. */
    result: jsonb('result'),
    idempotencyKey: text('idempotency_key'),
    queueJobId: text('queue_job_id'),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [
    index('runs_user_idx').on(table.userId, table.createdAt),
    index('runs_status_idx').on(table.status),
    // Everyone's token usage over a window (Admin → Usage) reads chat runs by when they were made.
    index('runs_chat_created_idx').on(table.createdAt).where(sql`${table.kind} = 'chat'`),
    uniqueIndex('runs_idempotency_idx').on(table.userId, table.idempotencyKey),
    // The database itself guarantees at most one active run per chat session.
    uniqueIndex('runs_one_active_per_session_idx')
      .on(table.sessionId)
      .where(sql`${table.status} in ('queued', 'running', 'awaiting_approval') and ${table.sessionId} is not null`),
  ],
);
