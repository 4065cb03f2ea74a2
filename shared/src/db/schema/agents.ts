import { sql } from 'drizzle-orm';
import { boolean, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { agentTools } from './agent-tools';
import { llmModels } from './llm-models';

export const agents = pgTable('agents', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  systemPrompt: text('system_prompt').notNull().default(''),
  modelId: text('model_id').references(() => llmModels.id, { onDelete: 'set null' }),
  maxSteps: integer('max_steps').notNull().default(8),
  /** The default agent offers every enabled tool, as in seed 000. */
  isDefault: boolean('is_default').notNull().default(false),
  approvalTimeoutMs: integer('approval_timeout_ms'),
  /** Put the user's memory documents into the system prompt at run start, so a new chat remembers without a tool call. */
  loadMemory: boolean('load_memory').notNull().default(false),
  /** Upper bound, in tokens, of the memory text loaded into the prompt. */
  memoryTokenBudget: integer('memory_token_budget').notNull().default(2000),
  /** Who can use it: the user groups (user_groups.id) whose members may chat with it; empty is everyone. */
  groupIds: text('group_ids').array().notNull().default(sql`'{}'::text[]`),
  ...timestamps,
});

export const agentToolAssociations = pgTable(
  'agent_tool_associations',
  {
    agentId: text('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
    toolId: text('tool_id').notNull().references(() => agentTools.id, { onDelete: 'cascade' }),
    /** null inherits the tool's needs_approval. */
    needsApproval: boolean('needs_approval'),
  },
  (table) => [primaryKey({ columns: [table.agentId, table.toolId] })],
);
