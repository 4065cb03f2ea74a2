import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import { answersChats } from '../api-types/models';
import type { Database } from '../db/client';
import { agents, agentToolAssociations, agentTools, llmModels } from '../db/schema';
import { newId } from '../ids';
import { findInAgentConfig, loadAgentConfig, type AgentConfigSnapshot } from './agent-config';
import { invalidateConfig } from './config-cache';
import { ConflictError, InvalidInputError, NotFoundError } from './errors';
import type { AgentTool } from './tools';
import { checkGroupIds, groupIdsSchema } from './groups/groups';

type AgentRow = typeof agents.$inferSelect;

export const DEFAULT_AGENT_NAME = 'Default agent';
export const DEFAULT_MAX_STEPS = 8;
export const MAX_AGENT_STEPS = 50;

/** One tool an agent offers, as the API shows it; `needsApproval: null` inherits the tool's flag. */
export type AgentToolAssociation = {
  toolId: string;
  needsApproval: boolean | null;
  tool: Pick<AgentTool, 'id' | 'name' | 'slug' | 'type' | 'enabled'>;
};

export type Agent = AgentRow & {
  model: { id: string; name: string } | null;
  tools: AgentToolAssociation[];
};

/** A tool as the worker offers it to the model: the approval flag is already resolved. */
export type ResolvedAgentTool = {
  tool: AgentTool;
  /** The association's override, else the tool's own flag. */
  needsApproval: boolean;
  /** The tool's own timeout, else the agent's; null = the platform default. */
  approvalTimeoutMs: number | null;
};

const agentToolInputSchema = z.object({
  toolId: z.string().min(1).max(100),
  /** true/false override the tool's flag; null inherits it. */
  needsApproval: z.boolean().nullable().default(null),
});

const toolListSchema = z
  .array(agentToolInputSchema)
  .max(500)
  .superRefine((tools, context) => {
    const seen = new Set<string>();
    tools.forEach((tool, index) => {
      if (seen.has(tool.toolId)) context.addIssue({ code: 'custom', path: [index, 'toolId'], message: `Tool '${tool.toolId}' is listed twice` });
      seen.add(tool.toolId);
    });
  });

const agentFieldsSchema = z.object({
  name: z.string().trim().min(1).max(100),
  systemPrompt: z.string().max(100_000),
  /** null: no model of its own (the run's or the default model is used). */
  modelId: z.string().min(1).max(100).nullable(),
  maxSteps: z.number().int().min(1).max(MAX_AGENT_STEPS),
  /** How long this agent's approvals wait when the tool sets no timeout; null = the platform default. */
  approvalTimeoutMs: z.number().int().min(1000).max(7 * 24 * 3600 * 1000).nullable(),
  /** Exactly one agent is the default: setting it here takes the flag from the previous one. */
  isDefault: z.boolean(),
  /** Load the user's memory documents into the system prompt at run start (no tool call needed to remember). */
  loadMemory: z.boolean(),
  /** At most this many tokens of memory go into the prompt; the most recently updated memories win. */
  memoryTokenBudget: z.number().int().min(100, 'Use at least 100 tokens').max(32_000, 'Use at most 32,000 tokens'),
  /** The tools this agent offers; on update the list replaces the old one as a whole. */
  tools: toolListSchema,
  /** Who can use it: the user groups whose members may chat with it; empty is everyone (admins always may). Never on the default agent. */
  groupIds: groupIdsSchema,
});

/** POST /api/agents. */
export const createAgentInputSchema = agentFieldsSchema.extend({
  systemPrompt: z.string().max(100_000).default(''),
  modelId: z.string().min(1).max(100).nullable().default(null),
  maxSteps: z.number().int().min(1).max(MAX_AGENT_STEPS).default(DEFAULT_MAX_STEPS),
  approvalTimeoutMs: agentFieldsSchema.shape.approvalTimeoutMs.default(null),
  isDefault: z.boolean().default(false),
  loadMemory: z.boolean().default(false),
  memoryTokenBudget: agentFieldsSchema.shape.memoryTokenBudget.default(2000),
  tools: toolListSchema.default([]),
  groupIds: groupIdsSchema.default([]),
});
export type CreateAgentInput = z.input<typeof createAgentInputSchema>;

/** PUT /api/agents/:id: any subset; `tools`, when given, replaces every association. */
export const updateAgentInputSchema = agentFieldsSchema.partial();
export type UpdateAgentInput = z.input<typeof updateAgentInputSchema>;

// One key for every change of the default flag, so concurrent writers (several API processes
// starting at once) cannot leave two defaults or none. Advisory locks need no schema change.
const DEFAULT_AGENT_LOCK = sql`select pg_advisory_xact_lock(hashtext('agentq:default-agent'))`;

async function lockDefaultAgent(tx: Database) {
  await tx.execute(DEFAULT_AGENT_LOCK);
}

/** The default agent is everyone's: limiting it to groups would leave the others without an agent. */
function refuseLimitedDefault(agent: { isDefault?: boolean; groupIds?: readonly string[] }) {
  if (agent.isDefault && agent.groupIds && agent.groupIds.length > 0) {
    throw new InvalidInputError('The default agent is used by everyone: it cannot be limited to groups', [{ path: ['groupIds'], message: 'The default agent cannot be limited to groups' }]);
  }
}

/** An agent's model must exist and answer chats (a model that transcribes speech, embeds text or generates images does not). */
async function assertChatModel(db: Database, modelId: string | null | undefined) {
  if (!modelId) return;
  const [model] = await db
    .select({ name: llmModels.name, transcribesSpeech: llmModels.transcribesSpeech, embedsText: llmModels.embedsText, generatesImages: llmModels.generatesImages })
    .from(llmModels)
    .where(eq(llmModels.id, modelId));
  if (!model) throw new InvalidInputError(`Unknown model '${modelId}'`, [{ path: ['modelId'], message: `No model with id '${modelId}'` }]);
  if (!answersChats(model)) {
    const does = model.transcribesSpeech ? 'transcribes speech' : model.embedsText ? 'embeds text' : 'generates images';
    throw new InvalidInputError(`'${model.name}' ${does} and answers no chats: pick another model`, [{ path: ['modelId'], message: `A model that ${does} cannot answer an agent's chats` }]);
  }
}

async function assertToolsExist(db: Database, tools: { toolId: string }[]) {
  if (tools.length === 0) return;
  const ids = tools.map((tool) => tool.toolId);
  const found = new Set((await db.select({ id: agentTools.id }).from(agentTools).where(inArray(agentTools.id, ids))).map((row) => row.id));
  const missing = tools.map((tool, index) => ({ toolId: tool.toolId, index })).filter((tool) => !found.has(tool.toolId));
  if (missing.length > 0) {
    throw new InvalidInputError(
      `Unknown tool${missing.length > 1 ? 's' : ''}: ${missing.map((tool) => `'${tool.toolId}'`).join(', ')}`,
      missing.map((tool) => ({ path: ['tools', tool.index, 'toolId'], message: `No tool with id '${tool.toolId}'` })),
    );
  }
}

async function replaceAssociations(tx: Database, agentId: string, tools: z.output<typeof toolListSchema>) {
  await tx.delete(agentToolAssociations).where(eq(agentToolAssociations.agentId, agentId));
  if (tools.length > 0) {
    await tx.insert(agentToolAssociations).values(tools.map((tool) => ({ agentId, toolId: tool.toolId, needsApproval: tool.needsApproval })));
  }
}

async function clearOtherDefaults(tx: Database, agentId: string) {
  await tx.update(agents).set({ isDefault: false }).where(and(eq(agents.isDefault, true), ne(agents.id, agentId)));
}

/** Rows → views with their model and tools, in two queries whatever the number of agents. */
async function toAgentViews(db: Database, rows: AgentRow[]): Promise<Agent[]> {
  if (rows.length === 0) return [];
  const agentIds = rows.map((row) => row.id);
  const modelIds = [...new Set(rows.map((row) => row.modelId).filter((id): id is string => id !== null))];
  const models = modelIds.length
    ? await db.select({ id: llmModels.id, name: llmModels.name }).from(llmModels).where(inArray(llmModels.id, modelIds))
    : [];
  const associations = await db
    .select({
      agentId: agentToolAssociations.agentId,
      toolId: agentToolAssociations.toolId,
      needsApproval: agentToolAssociations.needsApproval,
      tool: { id: agentTools.id, name: agentTools.name, slug: agentTools.slug, type: agentTools.type, enabled: agentTools.enabled },
    })
    .from(agentToolAssociations)
    .innerJoin(agentTools, eq(agentTools.id, agentToolAssociations.toolId))
    .where(inArray(agentToolAssociations.agentId, agentIds))
    .orderBy(asc(agentTools.sortOrder), asc(agentTools.name));
  const modelById = new Map(models.map((model) => [model.id, model]));
  return rows.map((row) => ({
    ...row,
    model: (row.modelId && modelById.get(row.modelId)) || null,
    tools: associations.filter((association) => association.agentId === row.id).map(({ agentId: _agentId, ...association }) => association),
  }));
}

async function findAgentRow(db: Database, id: string): Promise<AgentRow> {
  const [row] = await db.select().from(agents).where(eq(agents.id, id));
  if (!row) throw new NotFoundError('Agent', id);
  return row;
}

/** Every agent with its model and tools; the default agent first, then by name. */
export async function listAgents(db: Database): Promise<Agent[]> {
  const rows = await db.select().from(agents).orderBy(desc(agents.isDefault), asc(agents.name), asc(agents.createdAt));
  return toAgentViews(db, rows);
}

/** The same view as `toAgentViews`, built from the config snapshot (tools in the snapshot's sort order). */
function agentViewFrom(config: AgentConfigSnapshot, row: AgentRow): Agent {
  const model = row.modelId ? config.models.find((candidate) => candidate.id === row.modelId) : undefined;
  const overrides = new Map(config.associations.filter((association) => association.agentId === row.id).map((association) => [association.toolId, association.needsApproval]));
  return {
    ...row,
    model: model ? { id: model.id, name: model.name } : null,
    tools: config.tools
      .filter((tool) => overrides.has(tool.id))
      .map((tool) => ({
        toolId: tool.id,
        needsApproval: overrides.get(tool.id) ?? null,
        tool: { id: tool.id, name: tool.name, slug: tool.slug, type: tool.type, enabled: tool.enabled },
      })),
  };
}

/** One agent with its model and tools, read through the config cache. @throws {NotFoundError} */
export async function getAgent(db: Database, id: string): Promise<Agent> {
  const view = await findInAgentConfig(db, (config) => {
    const row = config.agents.find((agent) => agent.id === id);
    return row ? agentViewFrom(config, row) : undefined;
  });
  if (!view) throw new NotFoundError('Agent', id);
  return view;
}

/** The agent with `isDefault` (the oldest, should there be two), or null before `ensureDefaultAgent` ran. */
export async function getDefaultAgent(db: Database): Promise<Agent | null> {
  const config = await loadAgentConfig(db);
  const row = config.agents.find((agent) => agent.isDefault);
  return row ? agentViewFrom(config, row) : null;
}

/**
 * Creates an agent with its tool associations in one transaction.
 * @throws {InvalidInputError} for an unknown model or tool (the issue names the id).
 */
export async function createAgent(db: Database, input: CreateAgentInput): Promise<Agent> {
  const { tools, ...fields } = createAgentInputSchema.parse(input);
  const id = newId('agent');
  await db.transaction(async (tx) => {
    refuseLimitedDefault(fields);
    await assertChatModel(tx, fields.modelId);
    await assertToolsExist(tx, tools);
    await checkGroupIds(tx, fields.groupIds);
    if (fields.isDefault) {
      await lockDefaultAgent(tx);
      await clearOtherDefaults(tx, id);
    }
    await tx.insert(agents).values({ id, ...fields });
    await replaceAssociations(tx, id, tools);
  });
  await invalidateConfig(db);
  return getAgent(db, id);
}

/**
 * Updates an agent; `tools`, when given, replaces all its associations (in one transaction).
 * @throws {ConflictError} when unsetting the default flag: make another agent the default instead.
 */
export async function updateAgent(db: Database, id: string, input: UpdateAgentInput): Promise<Agent> {
  const { tools, ...fields } = updateAgentInputSchema.parse(input);
  await db.transaction(async (tx) => {
    if (fields.isDefault !== undefined) await lockDefaultAgent(tx);
    const existing = await findAgentRow(tx, id);
    if (existing.isDefault && fields.isDefault === false) {
      throw new ConflictError('This is the default agent: make another agent the default instead', { agentId: id });
    }
    refuseLimitedDefault({ isDefault: fields.isDefault ?? existing.isDefault, groupIds: fields.groupIds ?? existing.groupIds });
    await assertChatModel(tx, fields.modelId);
    if (tools) await assertToolsExist(tx, tools);
    await checkGroupIds(tx, fields.groupIds);
    if (fields.isDefault && !existing.isDefault) await clearOtherDefaults(tx, id);
    if (Object.keys(fields).length > 0) await tx.update(agents).set(fields).where(eq(agents.id, id));
    else if (tools) await tx.update(agents).set({ updatedAt: new Date() }).where(eq(agents.id, id));
    if (tools) await replaceAssociations(tx, id, tools);
  });
  await invalidateConfig(db);
  return getAgent(db, id);
}

/**
 * Deletes an agent and its associations.
 * @throws {ConflictError} for the default agent, which must always exist.
 */
export async function deleteAgent(db: Database, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    await lockDefaultAgent(tx);
    const existing = await findAgentRow(tx, id);
    if (existing.isDefault) throw new ConflictError('The default agent cannot be deleted: make another agent the default first', { agentId: id });
    await tx.delete(agents).where(eq(agents.id, id));
  });
  await invalidateConfig(db);
}

/**
 * Creates "Default agent" (no associations: it offers every enabled tool, as in seed 000) unless
 * a default agent exists. Its model is the oldest enabled model, if any. Safe to call at every start.
 */
export async function ensureDefaultAgent(db: Database): Promise<{ agent: Agent; created: boolean }> {
  const result = await db.transaction(async (tx) => {
    await lockDefaultAgent(tx);
    const [existing] = await tx.select({ id: agents.id }).from(agents).where(eq(agents.isDefault, true)).limit(1);
    if (existing) return { id: existing.id, created: false };
    // No model of its own: the default agent follows whichever model admins mark default.
    const id = newId('agent');
    await tx.insert(agents).values({ id, name: DEFAULT_AGENT_NAME, isDefault: true, modelId: null, maxSteps: DEFAULT_MAX_STEPS });
    return { id, created: true };
  });
  if (result.created) await invalidateConfig(db);
  return { agent: await getAgent(db, result.id), created: result.created };
}

/**
 * The tools an agent offers, each with its effective approval flag (override ?? tool flag), by
 * sort order. Disabled tools are never offered. The default agent without associations offers
 * every enabled tool with its own flag.
 * @example const tools = await resolveAgentTools(db, run.agentId); // → the LLM tool set + toolApproval
 */
export async function resolveAgentTools(db: Database, agentId: string): Promise<ResolvedAgentTool[]> {
  // Read through the config cache: the worker calls this for every run.
  const found = await findInAgentConfig(db, (config) => {
    const agent = config.agents.find((candidate) => candidate.id === agentId);
    return agent ? { config, agent } : undefined;
  });
  if (!found) throw new NotFoundError('Agent', agentId);
  const { config: current, agent } = found;
  const associations = current.associations.filter((association) => association.agentId === agentId);
  const overrides = new Map(associations.map((association) => [association.toolId, association.needsApproval]));
  let offered: { tool: AgentTool; override: boolean | null }[] = current.tools
    .filter((tool) => tool.enabled && overrides.has(tool.id))
    .map((tool) => ({ tool, override: overrides.get(tool.id) ?? null }));
  // Associations that are all disabled still restrict the agent; only "none at all" means every tool.
  if (agent.isDefault && associations.length === 0) {
    offered = current.tools.filter((tool) => tool.enabled).map((tool) => ({ tool, override: null }));
  }
  return offered.map(({ tool, override }) => ({
    tool,
    needsApproval: override ?? tool.needsApproval,
    approvalTimeoutMs: tool.approvalTimeoutMs ?? agent.approvalTimeoutMs,
  }));
}
