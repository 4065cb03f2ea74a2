import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { createDb, type DbHandle } from '../db/client';
import { agents, agentToolAssociations } from '../db/schema';
import { openTestDb } from '../testing';
import {
  createAgent,
  deleteAgent,
  ensureDefaultAgent,
  getAgent,
  getDefaultAgent,
  listAgents,
  resolveAgentTools,
  updateAgent,
  type ResolvedAgentTool,
} from './agents';
import { ConflictError, InvalidInputError, NotFoundError } from './errors';
import { createModel, deleteModel } from './models';
import { createTool, type AgentTool } from './tools';

const APP_SECRET = 'agents-test-secret-0123456789';
let database: DbHandle;
let db: DbHandle['db'];
let plain: AgentTool;
let guarded: AgentTool;
let disabled: AgentTool;
let modelId: string;

const slug = (base: string) => `${base}_${randomBytes(4).toString('hex')}`;
const flags = (tools: ResolvedAgentTool[]) => Object.fromEntries(tools.map(({ tool, needsApproval }) => [tool.id, needsApproval]));

beforeAll(async () => {
  database = await openTestDb();
  db = database.db;
  plain = await createTool(db, { name: 'Plain', slug: slug('plain'), type: 'calculator', config: {}, description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, sortOrder: 1 });
  guarded = await createTool(db, { name: 'Guarded', slug: slug('guarded'), type: 'calculator', config: {}, description: '', enabled: true, needsApproval: true, approvalTimeoutMs: 60_000, sortOrder: 2 });
  disabled = await createTool(db, { name: 'Off', slug: slug('off'), type: 'calculator', config: {}, description: '', enabled: false, needsApproval: false, approvalTimeoutMs: null, sortOrder: 0 });
  modelId = (await createModel(db, { name: 'Agent model', baseUrl: 'https://llm.example/v1', modelId: 'm1' }, APP_SECRET)).id;
});

afterAll(async () => {
  await database?.close();
});

describe('agents CRUD', () => {
  it('creates with defaults, a model and tool associations, and shows them in the view', async () => {
    const agent = await createAgent(db, {
      name: 'Researcher',
      systemPrompt: 'Be brief.',
      modelId,
      tools: [{ toolId: guarded.id, needsApproval: false }, { toolId: plain.id }],
    });
    expect(agent).toMatchObject({ name: 'Researcher', systemPrompt: 'Be brief.', maxSteps: 8, approvalTimeoutMs: null, isDefault: false, modelId });
    expect(agent.id).toMatch(/^agt_/);
    expect(agent.model).toEqual({ id: modelId, name: 'Agent model' });
    expect(agent.tools).toEqual([
      { toolId: plain.id, needsApproval: null, tool: { id: plain.id, name: 'Plain', slug: plain.slug, type: 'calculator', enabled: true } },
      { toolId: guarded.id, needsApproval: false, tool: { id: guarded.id, name: 'Guarded', slug: guarded.slug, type: 'calculator', enabled: true } },
    ]);
    expect(await getAgent(db, agent.id)).toEqual(agent);
    expect((await listAgents(db)).find((item) => item.id === agent.id)).toEqual(agent);
  });

  it('refuses an unknown model or tool with an issue naming the id, and stores nothing', async () => {
    const before = (await listAgents(db)).length;
    const unknownModel = await createAgent(db, { name: 'X', modelId: 'mdl_nope' }).catch((error: unknown) => error);
    expect(unknownModel).toBeInstanceOf(InvalidInputError);
    expect((unknownModel as InvalidInputError).issues).toEqual([{ path: ['modelId'], message: "No model with id 'mdl_nope'" }]);

    const unknownTool = await createAgent(db, { name: 'X', tools: [{ toolId: plain.id }, { toolId: 'at_nope' }] }).catch((error: unknown) => error);
    expect(unknownTool).toBeInstanceOf(InvalidInputError);
    expect((unknownTool as Error).message).toContain('at_nope');
    expect((unknownTool as InvalidInputError).issues).toEqual([{ path: ['tools', 1, 'toolId'], message: "No tool with id 'at_nope'" }]);

    await expect(createAgent(db, { name: 'X', tools: [{ toolId: plain.id }, { toolId: plain.id }] })).rejects.toThrow(ZodError);
    await expect(createAgent(db, { name: 'X', maxSteps: 51 })).rejects.toThrow(ZodError);
    await expect(createAgent(db, { name: 'X', maxSteps: 0 })).rejects.toThrow(ZodError);
    await expect(createAgent(db, { name: ' ' })).rejects.toThrow(ZodError);
    expect((await listAgents(db)).length).toBe(before);
  });

  it('replaces the tools as a whole on update, keeps them when omitted, and rolls back on a bad tool', async () => {
    const agent = await createAgent(db, { name: 'Editor', tools: [{ toolId: plain.id }, { toolId: guarded.id, needsApproval: true }] });
    const renamed = await updateAgent(db, agent.id, { name: 'Editor 2', maxSteps: 20, approvalTimeoutMs: 5000 });
    expect(renamed).toMatchObject({ name: 'Editor 2', maxSteps: 20, approvalTimeoutMs: 5000 });
    expect(renamed.tools.map((tool) => tool.toolId)).toEqual([plain.id, guarded.id]);

    const replaced = await updateAgent(db, agent.id, { tools: [{ toolId: guarded.id, needsApproval: null }] });
    expect(replaced.tools).toEqual([expect.objectContaining({ toolId: guarded.id, needsApproval: null })]);
    expect(replaced.name).toBe('Editor 2');

    await expect(updateAgent(db, agent.id, { name: 'Broken', tools: [{ toolId: 'at_missing' }] })).rejects.toThrow(InvalidInputError);
    const unchanged = await getAgent(db, agent.id);
    expect(unchanged.name).toBe('Editor 2');
    expect(unchanged.tools.map((tool) => tool.toolId)).toEqual([guarded.id]);

    expect((await updateAgent(db, agent.id, { tools: [] })).tools).toEqual([]);
    await expect(updateAgent(db, agent.id, { modelId: 'mdl_nope' })).rejects.toThrow(InvalidInputError);
    await expect(updateAgent(db, 'agt_missing', { name: 'x' })).rejects.toThrow(NotFoundError);
  });

  it('deletes an agent with its associations; a deleted model leaves the agent without one', async () => {
    const model = await createModel(db, { name: 'Doomed', baseUrl: 'https://llm.example/v1', modelId: 'doomed' }, APP_SECRET);
    const agent = await createAgent(db, { name: 'Temp', modelId: model.id, tools: [{ toolId: plain.id }] });
    await deleteModel(db, model.id);
    expect(await getAgent(db, agent.id)).toMatchObject({ modelId: null, model: null });

    await deleteAgent(db, agent.id);
    await expect(getAgent(db, agent.id)).rejects.toThrow(NotFoundError);
    expect(await db.select().from(agentToolAssociations).where(eq(agentToolAssociations.agentId, agent.id))).toEqual([]);
    await expect(deleteAgent(db, agent.id)).rejects.toThrow(NotFoundError);
  });
});

describe('the default agent', () => {
  it('is created once by ensureDefaultAgent, with no associations', async () => {
    const first = await ensureDefaultAgent(db);
    const second = await ensureDefaultAgent(db);
    expect(second).toEqual({ agent: first.agent, created: false });
    expect(first.agent).toMatchObject({ isDefault: true, tools: [] });
    expect((await getDefaultAgent(db))?.id).toBe(first.agent.id);
  });

  it('moves to another agent when that one is marked default, and cannot be unset or deleted', async () => {
    const { agent: original } = await ensureDefaultAgent(db);
    const successor = await createAgent(db, { name: 'Successor', isDefault: true });
    expect(successor.isDefault).toBe(true);
    expect((await getAgent(db, original.id)).isDefault).toBe(false);
    expect((await listAgents(db)).filter((agent) => agent.isDefault).map((agent) => agent.id)).toEqual([successor.id]);
    expect((await listAgents(db))[0]!.id).toBe(successor.id);

    await expect(updateAgent(db, successor.id, { isDefault: false })).rejects.toThrow(ConflictError);
    const refused = await deleteAgent(db, successor.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as Error).message).toMatch(/default agent cannot be deleted/);

    const back = await updateAgent(db, original.id, { isDefault: true });
    expect(back.isDefault).toBe(true);
    expect((await getAgent(db, successor.id)).isDefault).toBe(false);
    await deleteAgent(db, successor.id);
  });

  it('stays unique when several processes ensure it at once', async () => {
    const { agent: original } = await ensureDefaultAgent(db);
    await db.update(agents).set({ isDefault: false }).where(eq(agents.id, original.id));
    const handles = await Promise.all(Array.from({ length: 4 }, () => openTestDb()));
    try {
      const results = await Promise.all(handles.map((handle) => ensureDefaultAgent(handle.db)));
      expect(results.filter((result) => result.created)).toHaveLength(1);
      expect(new Set(results.map((result) => result.agent.id)).size).toBe(1);
      const created = results[0]!.agent;
      expect(created.name).toBe('Default agent');
      expect((await listAgents(db)).filter((agent) => agent.isDefault)).toHaveLength(1);
      await updateAgent(db, original.id, { isDefault: true });
      await deleteAgent(db, created.id);
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
    }
  });

  it('works the same on embedded PGlite (the all-in-one database)', async () => {
    const embedded = await createDb({ dataDir: 'memory://' });
    try {
      await embedded.migrate();
      const model = await createModel(embedded.db, { name: 'M', baseUrl: 'https://llm.example/v1', modelId: 'm' }, APP_SECRET);
      const { agent, created } = await ensureDefaultAgent(embedded.db);
      expect(created).toBe(true);
      // No model of its own: it follows whichever model is the default (here the only one).
      expect(agent.model).toBeNull();
      expect(model.isDefault).toBe(false);
      const other = await createAgent(embedded.db, { name: 'Other', isDefault: true });
      expect((await getDefaultAgent(embedded.db))?.id).toBe(other.id);
      await deleteAgent(embedded.db, agent.id);
      expect(await listAgents(embedded.db)).toHaveLength(1);
    } finally {
      await embedded.close();
    }
  });
});

describe('resolveAgentTools', () => {
  it('applies the override when set and the tool flag when null, and never offers disabled tools', async () => {
    const agent = await createAgent(db, {
      name: 'Resolver',
      tools: [
        { toolId: plain.id, needsApproval: true },
        { toolId: guarded.id, needsApproval: null },
        { toolId: disabled.id, needsApproval: true },
      ],
    });
    const resolved = await resolveAgentTools(db, agent.id);
    expect(resolved.map(({ tool }) => tool.id)).toEqual([plain.id, guarded.id]);
    expect(flags(resolved)).toEqual({ [plain.id]: true, [guarded.id]: true });

    await updateAgent(db, agent.id, { tools: [{ toolId: plain.id, needsApproval: null }, { toolId: guarded.id, needsApproval: false }] });
    expect(flags(await resolveAgentTools(db, agent.id))).toEqual({ [plain.id]: false, [guarded.id]: false });
  });

  it('takes the approval timeout from the tool, else from the agent', async () => {
    const agent = await createAgent(db, { name: 'Timeouts', approvalTimeoutMs: 120_000, tools: [{ toolId: plain.id }, { toolId: guarded.id }] });
    const timeouts = Object.fromEntries((await resolveAgentTools(db, agent.id)).map(({ tool, approvalTimeoutMs }) => [tool.id, approvalTimeoutMs]));
    expect(timeouts).toEqual({ [plain.id]: 120_000, [guarded.id]: 60_000 });
  });

  it('offers nothing for a non-default agent without associations', async () => {
    const agent = await createAgent(db, { name: 'Toolless' });
    expect(await resolveAgentTools(db, agent.id)).toEqual([]);
  });

  it('offers every enabled tool with its own flag for the default agent without associations, and only its associations otherwise', async () => {
    const { agent } = await ensureDefaultAgent(db);
    const everything = await resolveAgentTools(db, agent.id);
    const ids = everything.map(({ tool }) => tool.id);
    expect(ids).toEqual(expect.arrayContaining([plain.id, guarded.id]));
    expect(ids).not.toContain(disabled.id);
    expect(everything.every(({ tool }) => tool.enabled)).toBe(true);
    expect(flags(everything)).toMatchObject({ [plain.id]: false, [guarded.id]: true });

    await updateAgent(db, agent.id, { tools: [{ toolId: guarded.id, needsApproval: false }] });
    expect(flags(await resolveAgentTools(db, agent.id))).toEqual({ [guarded.id]: false });
    // Associations to disabled tools only still restrict the default agent.
    await updateAgent(db, agent.id, { tools: [{ toolId: disabled.id }] });
    expect(await resolveAgentTools(db, agent.id)).toEqual([]);
    await updateAgent(db, agent.id, { tools: [] });
    expect((await resolveAgentTools(db, agent.id)).length).toBe(everything.length);
  });

  it('answers NotFoundError for an unknown agent', async () => {
    await expect(resolveAgentTools(db, 'agt_missing')).rejects.toThrow(NotFoundError);
  });
});
