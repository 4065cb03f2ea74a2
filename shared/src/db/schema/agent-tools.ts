import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import type { ToolDiscovery } from '../../tools/define-tool-type';
import { createdAt, timestamps } from './columns';

export const RETRY_INTERRUPTED = ['never', 'with-idempotency-key'] as const;
export type RetryInterrupted = (typeof RETRY_INTERRUPTED)[number];

/** Tool instances (seed 000 §2.1): `type` names a registered tool type, `config` is validated against it. */
export const agentTools = pgTable(
  'agent_tools',
  {
    id: text('id').primaryKey(),
    name: varchar('name', { length: 50 }).notNull(),
    slug: varchar('slug', { length: 50 }).notNull(),
    description: text('description').notNull().default(''),
    type: varchar('type', { length: 30 }).notNull(),
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    enabled: boolean('enabled').notNull().default(true),
    needsApproval: boolean('needs_approval').notNull().default(false),
    /** How long a pending approval waits before it expires (denied as "expired"); null = default. */
    approvalTimeoutMs: integer('approval_timeout_ms'),
    sortOrder: integer('sort_order').notNull().default(0),
    /** The last good answer of the instance's server (MCP tools/list, OpenAPI operations), for types that discover. */
    discovery: jsonb('discovery').$type<ToolDiscovery>(),
    /** Why the last discovery failed (the snapshot above is kept); null after a success. */
    discoveryError: text('discovery_error'),
    /** The type's write-only secrets as one JSON object, encrypted with APP_SECRET; never sent to clients. */
    secretsEncrypted: text('secrets_encrypted'),
    /** What a resumed run does with a non-idempotent call a crash interrupted: report it, or re-send it with the same Idempotency-Key. */
    retryInterrupted: varchar('retry_interrupted', { length: 30, enum: RETRY_INTERRUPTED }).notNull().default('never'),
    ...timestamps,
  },
  (table) => [uniqueIndex('agent_tools_slug_idx').on(table.slug), index('agent_tools_enabled_idx').on(table.enabled)],
);

export const TOOL_LOG_STATUSES = ['success', 'error', 'timeout'] as const;
export type ToolLogStatus = (typeof TOOL_LOG_STATUSES)[number];

/** Every execution, standalone or from chat (seed 000 §2.2); (run_id, tool_call_id) is the idempotency key. */
export const agentToolLogs = pgTable(
  'agent_tool_logs',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    toolId: text('tool_id').notNull(),
    /** The name the model called: the slug, or `<slug>__<name>` for a tool an MCP/OpenAPI instance expands into. */
    toolSlug: varchar('tool_slug', { length: 100 }).notNull(),
    userId: text('user_id'),
    runId: text('run_id'),
    toolCallId: text('tool_call_id'),
    input: jsonb('input'),
    output: text('output'),
    status: varchar('status', { length: 20, enum: TOOL_LOG_STATUSES }).notNull(),
    errorMessage: text('error_message'),
    durationMs: integer('duration_ms').notNull(),
    /** The full ToolResult, so a retried job can return it without executing again. */
    result: jsonb('result'),
    createdAt,
  },
  (table) => [
    index('agent_tool_logs_tool_idx').on(table.toolId),
    index('agent_tool_logs_created_idx').on(table.createdAt),
    uniqueIndex('agent_tool_logs_run_call_idx').on(table.runId, table.toolCallId),
  ],
);
