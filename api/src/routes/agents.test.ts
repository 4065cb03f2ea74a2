import { randomBytes } from 'node:crypto';
import { ensureDefaultAgent, resolveAgentTools } from '@agentq/shared/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let calculator: { id: string; slug: string };
let clock: { id: string; slug: string };
let model: { id: string; name: string };

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = admin.headers) =>
  t.app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
const slug = (base: string) => `${base}_${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.signUp('admin');
  calculator = await (await send('POST', '/api/agent-tools', { name: 'Calc', slug: slug('calc'), type: 'calculator', sortOrder: 1 })).json();
  clock = await (await send('POST', '/api/agent-tools', { name: 'Guarded calc', slug: slug('guarded'), type: 'calculator', needsApproval: true, sortOrder: 2 })).json();
  model = await (await send('POST', '/api/models', { name: 'Agent LLM', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'fake' })).json();
});

afterAll(async () => {
  await t.close();
});

describe('agents API', () => {
  it('creates (201) an agent with a model and tools, and shows both in get and list', async () => {
    const created = await send('POST', '/api/agents', {
      name: 'Helper',
      systemPrompt: 'Help.',
      modelId: model.id,
      maxSteps: 12,
      approvalTimeoutMs: 60_000,
      tools: [{ toolId: calculator.id, needsApproval: true }, { toolId: clock.id, needsApproval: null }],
    });
    expect(created.status).toBe(201);
    const agent = await created.json();
    expect(agent).toMatchObject({ name: 'Helper', systemPrompt: 'Help.', modelId: model.id, maxSteps: 12, approvalTimeoutMs: 60_000, isDefault: false });
    expect(agent.model).toEqual({ id: model.id, name: 'Agent LLM' });
    expect(agent.tools).toEqual([
      { toolId: calculator.id, needsApproval: true, tool: { id: calculator.id, name: 'Calc', slug: calculator.slug, type: 'calculator', enabled: true } },
      { toolId: clock.id, needsApproval: null, tool: { id: clock.id, name: 'Guarded calc', slug: clock.slug, type: 'calculator', enabled: true } },
    ]);
    expect(await (await send('GET', `/api/agents/${agent.id}`)).json()).toEqual(agent);
    const { items } = await (await send('GET', '/api/agents')).json();
    expect(items.find((item: { id: string }) => item.id === agent.id)).toEqual(agent);

    const resolved = await resolveAgentTools(t.db, agent.id);
    expect(resolved.map(({ tool, needsApproval }) => [tool.id, needsApproval])).toEqual([
      [calculator.id, true],
      [clock.id, true],
    ]);
  });

  it('fills defaults and replaces the tool list on update; omitting tools keeps them', async () => {
    const agent = await (await send('POST', '/api/agents', { name: 'Minimal' })).json();
    expect(agent).toMatchObject({ systemPrompt: '', modelId: null, model: null, maxSteps: 8, approvalTimeoutMs: null, isDefault: false, tools: [] });

    const withTools = await (await send('PUT', `/api/agents/${agent.id}`, { tools: [{ toolId: calculator.id }, { toolId: clock.id, needsApproval: false }] })).json();
    expect(withTools.tools.map((tool: { toolId: string; needsApproval: boolean | null }) => [tool.toolId, tool.needsApproval])).toEqual([
      [calculator.id, null],
      [clock.id, false],
    ]);
    const renamed = await (await send('PUT', `/api/agents/${agent.id}`, { name: 'Renamed', modelId: model.id })).json();
    expect(renamed).toMatchObject({ name: 'Renamed', model: { id: model.id } });
    expect(renamed.tools).toHaveLength(2);
    const trimmed = await (await send('PUT', `/api/agents/${agent.id}`, { tools: [{ toolId: clock.id }] })).json();
    expect(trimmed.tools.map((tool: { toolId: string }) => tool.toolId)).toEqual([clock.id]);

    expect((await send('DELETE', `/api/agents/${agent.id}`)).status).toBe(204);
    expect((await send('GET', `/api/agents/${agent.id}`)).status).toBe(404);
    expect((await send('PUT', `/api/agents/${agent.id}`, { name: 'x' })).status).toBe(404);
    expect((await send('DELETE', `/api/agents/${agent.id}`)).status).toBe(404);
  });

  it('answers 400 naming an unknown model or tool, and 400 with issues for bad fields', async () => {
    const unknownModel = await send('POST', '/api/agents', { name: 'X', modelId: 'mdl_nope' });
    expect(unknownModel.status).toBe(400);
    expect((await unknownModel.json()).error.issues).toEqual([{ path: ['modelId'], message: "No model with id 'mdl_nope'" }]);

    const unknownTool = await send('POST', '/api/agents', { name: 'X', tools: [{ toolId: calculator.id }, { toolId: 'at_nope' }] });
    expect(unknownTool.status).toBe(400);
    const body = await unknownTool.json();
    expect(body.error.message).toContain('at_nope');
    expect(body.error.issues[0].path).toEqual(['tools', 1, 'toolId']);

    for (const bad of [{ name: '' }, { name: 'X', maxSteps: 51 }, { name: 'X', maxSteps: 0 }, { name: 'X', tools: [{ toolId: calculator.id, needsApproval: 'maybe' }] }, { name: 'X', tools: [{ toolId: calculator.id }, { toolId: calculator.id }] }]) {
      const response = await send('POST', '/api/agents', bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect((await response.json()).error.issues.length).toBeGreaterThan(0);
    }
    const agent = await (await send('POST', '/api/agents', { name: 'Valid', tools: [{ toolId: calculator.id }] })).json();
    const badUpdate = await send('PUT', `/api/agents/${agent.id}`, { name: 'Changed', tools: [{ toolId: 'at_gone' }] });
    expect(badUpdate.status).toBe(400);
    expect((await badUpdate.json()).error.message).toContain('at_gone');
    expect(await (await send('GET', `/api/agents/${agent.id}`)).json()).toMatchObject({ name: 'Valid', tools: [{ toolId: calculator.id }] });
  });

  it('keeps exactly one default agent: it moves on isDefault, cannot be unset or deleted (409)', async () => {
    const { agent: original } = await ensureDefaultAgent(t.db);
    const successor = await (await send('POST', '/api/agents', { name: 'New default', isDefault: true })).json();
    expect(successor.isDefault).toBe(true);
    const { items } = await (await send('GET', '/api/agents')).json();
    expect(items.filter((item: { isDefault: boolean }) => item.isDefault).map((item: { id: string }) => item.id)).toEqual([successor.id]);
    expect(items[0].id).toBe(successor.id);

    const deleteDefault = await send('DELETE', `/api/agents/${successor.id}`);
    expect(deleteDefault.status).toBe(409);
    expect((await deleteDefault.json()).error.message).toMatch(/default agent/);
    expect((await send('PUT', `/api/agents/${successor.id}`, { isDefault: false })).status).toBe(409);

    expect((await (await send('PUT', `/api/agents/${original.id}`, { isDefault: true })).json()).isDefault).toBe(true);
    expect((await (await send('GET', `/api/agents/${successor.id}`)).json()).isDefault).toBe(false);
    expect((await send('DELETE', `/api/agents/${successor.id}`)).status).toBe(204);
  });

  it('leaves an agent without a model when its model is deleted', async () => {
    const doomed = await (await send('POST', '/api/models', { name: 'Doomed', baseUrl: 'https://llm.example/v1', modelId: 'doomed' })).json();
    const agent = await (await send('POST', '/api/agents', { name: 'Orphan', modelId: doomed.id })).json();
    expect((await send('DELETE', `/api/models/${doomed.id}`)).status).toBe(204);
    expect(await (await send('GET', `/api/agents/${agent.id}`)).json()).toMatchObject({ modelId: null, model: null });
  });

  it('is admin-only: 403 for a user, 401 anonymous', async () => {
    const user = await t.signUp('user');
    expect((await send('GET', '/api/agents', undefined, user.headers)).status).toBe(403);
    expect((await send('POST', '/api/agents', { name: 'X' }, user.headers)).status).toBe(403);
    expect((await send('DELETE', '/api/agents/agt_x', undefined, user.headers)).status).toBe(403);
    expect((await t.app.request('/api/agents')).status).toBe(401);
    expect((await t.app.request('/api/agents/agt_x')).status).toBe(401);
  });
});
