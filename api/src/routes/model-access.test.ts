import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let user: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.signUp('admin');
  user = await t.signUp('user');
});

afterAll(async () => {
  await t.close();
});

const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
  t.app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
const modelInput = (name: string) => ({ name, baseUrl: 'http://127.0.0.1:9/v1', modelId: name.toLowerCase() });

async function ask(headers: Record<string, string>, body: Record<string, unknown>) {
  const session = await (await send('POST', '/api/sessions', {}, headers)).json();
  return send('POST', `/api/sessions/${session.id}/runs`, { content: 'Hello', ...body }, headers);
}

describe('models for admins only', () => {
  it('are offered to admins alone, refused when anyone else names them, and still answer through an agent an admin set', async () => {
    const everyone = await (await send('POST', '/api/models', { ...modelInput('Everyone'), isDefault: true }, admin.headers)).json();
    const created = await send('POST', '/api/models', { ...modelInput('Premium'), adminsOnly: true }, admin.headers);
    expect(created.status).toBe(201);
    const premium = await created.json();
    expect(premium.adminsOnly).toBe(true);

    const offered = async (headers: Record<string, string>) => ((await (await send('GET', '/api/chat-options', undefined, headers)).json()).models as { id: string }[]).map((model) => model.id);
    expect(await offered(admin.headers)).toEqual(expect.arrayContaining([everyone.id, premium.id]));
    expect(await offered(user.headers)).toContain(everyone.id);
    expect(await offered(user.headers)).not.toContain(premium.id);

    const refused = await ask(user.headers, { modelId: premium.id });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(await refused.json())).toContain('for administrators only');
    expect((await ask(admin.headers, { modelId: premium.id })).status).toBe(202);
    expect((await ask(user.headers, {})).status).toBe(202);

    // An agent an admin gave the model: everyone who may use the agent gets it.
    const agent = await (await send('POST', '/api/agents', { name: 'Premium agent', modelId: premium.id }, admin.headers)).json();
    const viaAgent = await ask(user.headers, { agentId: agent.id });
    expect(viaAgent.status).toBe(202);
    const run = await (await send('GET', `/api/runs/${(await viaAgent.json()).runId}`, undefined, user.headers)).json();
    expect(run.modelId).toBe(premium.id);
  });

  it('can never be the default model, created or changed so; a refusal changes nothing', async () => {
    const both = await send('POST', '/api/models', { ...modelInput('Both'), adminsOnly: true, isDefault: true }, admin.headers);
    expect(both.status).toBe(400);
    expect((await both.json()).error.issues).toEqual([expect.objectContaining({ path: ['adminsOnly'] })]);

    const standard = await (await send('POST', '/api/models', { ...modelInput('Standard'), isDefault: true }, admin.headers)).json();
    const hidden = await send('PUT', `/api/models/${standard.id}`, { adminsOnly: true }, admin.headers);
    expect(hidden.status).toBe(400);
    expect(await (await send('GET', `/api/models/${standard.id}`, undefined, admin.headers)).json()).toMatchObject({ adminsOnly: false, isDefault: true });
    expect((await send('PUT', `/api/models/${standard.id}`, { adminsOnly: 'yes' }, admin.headers)).status).toBe(400);
    // A user cannot change who may use a model.
    expect((await send('PUT', `/api/models/${standard.id}`, { adminsOnly: false }, user.headers)).status).toBe(403);
  });
});
