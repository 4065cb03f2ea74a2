import { chatSessions, messages, runs } from '@agentq/shared/db';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let user: Awaited<ReturnType<typeof t.signUp>>;
const unique = () => Math.random().toString(36).slice(2, 8);

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
const modelInput = (name: string) => ({ name, baseUrl: 'http://127.0.0.1:9/v1', modelId: name.toLowerCase().replace(/\W/g, '-') });
const newGroup = async (name = `Group ${unique()}`) => (await send('POST', '/api/groups', { name }, admin.headers)).json();
const chatOptions = async (headers: Record<string, string>) => (await send('GET', '/api/chat-options', undefined, headers)).json() as Promise<{ models: { id: string }[]; agents: { id: string }[] }>;
const countOf = async (table: typeof runs | typeof chatSessions, userId: string) => (await t.db.select({ value: count() }).from(table).where(eq(table.userId, userId)))[0]!.value;

describe('groups API', () => {
  it('is for admins: 401 signed out, 403 for a user, on every route', async () => {
    const group = await newGroup();
    expect((await t.app.request('/api/groups')).status).toBe(401);
    for (const [method, path, body] of [
      ['GET', '/api/groups', undefined],
      ['POST', '/api/groups', { name: 'Mine' }],
      ['GET', `/api/groups/${group.id}`, undefined],
      ['PATCH', `/api/groups/${group.id}`, { name: 'Mine' }],
      ['DELETE', `/api/groups/${group.id}`, undefined],
      ['PUT', `/api/groups/${group.id}/members/${user.user.id}`, undefined],
      ['DELETE', `/api/groups/${group.id}/members/${user.user.id}`, undefined],
    ] as const) {
      expect((await send(method, path, body, user.headers)).status, `${method} ${path}`).toBe(403);
    }
    expect((await send('GET', `/api/groups/${group.id}`, undefined, admin.headers)).status).toBe(200);
  });

  it('creates, renames, lists, adds and removes members, deletes; validates and answers 404/409 like its neighbours; audits each change', async () => {
    expect((await send('POST', '/api/groups', { name: '' }, admin.headers)).status).toBe(400);
    expect((await send('POST', '/api/groups', { name: 'x'.repeat(101) }, admin.headers)).status).toBe(400);
    const invalid = await send('POST', '/api/groups', { description: 'no name' }, admin.headers);
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).error.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: ['name'] })]));

    const created = await send('POST', '/api/groups', { name: `Finance ${unique()}`, description: 'The finance team' }, admin.headers);
    expect(created.status).toBe(201);
    const group = await created.json();
    expect(group).toMatchObject({ description: 'The finance team', memberCount: 0 });
    expect((await send('POST', '/api/groups', { name: group.name }, admin.headers)).status).toBe(409);

    expect((await send('PATCH', `/api/groups/${group.id}`, {}, admin.headers)).status).toBe(400);
    const renamed = await (await send('PATCH', `/api/groups/${group.id}`, { name: `${group.name} (EMEA)` }, admin.headers)).json();
    expect(renamed.name).toBe(`${group.name} (EMEA)`);
    expect((await send('PATCH', '/api/groups/grp_missing', { name: 'Nobody' }, admin.headers)).status).toBe(404);

    expect((await send('PUT', `/api/groups/${group.id}/members/${user.user.id}`, undefined, admin.headers)).status).toBe(204);
    expect((await send('PUT', `/api/groups/${group.id}/members/${user.user.id}`, undefined, admin.headers)).status).toBe(204);
    expect((await send('PUT', `/api/groups/${group.id}/members/usr_missing`, undefined, admin.headers)).status).toBe(404);
    expect((await send('PUT', `/api/groups/grp_missing/members/${user.user.id}`, undefined, admin.headers)).status).toBe(404);
    const detail = await (await send('GET', `/api/groups/${group.id}`, undefined, admin.headers)).json();
    expect(detail).toMatchObject({ memberCount: 1, members: [{ id: user.user.id, email: user.email }] });
    const listed = (await (await send('GET', '/api/groups', undefined, admin.headers)).json()).items.find((item: { id: string }) => item.id === group.id);
    expect(listed).toMatchObject({ name: renamed.name, memberCount: 1 });

    // Admin → Users shows each user's groups.
    const users = await (await send('GET', `/api/users?q=${encodeURIComponent(user.email)}`, undefined, admin.headers)).json();
    expect(users.items[0].groups).toEqual([{ id: group.id, name: renamed.name }]);

    expect((await send('DELETE', `/api/groups/${group.id}/members/${user.user.id}`, undefined, admin.headers)).status).toBe(204);
    expect((await send('DELETE', `/api/groups/${group.id}/members/${user.user.id}`, undefined, admin.headers)).status).toBe(404);
    expect((await send('DELETE', `/api/groups/${group.id}`, undefined, admin.headers)).status).toBe(204);
    expect((await send('GET', `/api/groups/${group.id}`, undefined, admin.headers)).status).toBe(404);
    expect((await send('DELETE', `/api/groups/${group.id}`, undefined, admin.headers)).status).toBe(404);

    const audit = await (await send('GET', `/api/admin/audit?action=group&targetId=${group.id}`, undefined, admin.headers)).json();
    expect(audit.items.map((item: { action: string }) => item.action).sort()).toEqual(['group.create', 'group.delete', 'group.member-add', 'group.member-add', 'group.member-remove', 'group.update'].sort());
  });

  it('a group still deciding who can use a model, an agent or a shared prompt is not deleted (409), and they name only groups that exist (400)', async () => {
    const group = await newGroup();
    const model = await (await send('POST', '/api/models', { ...modelInput(`Costly ${unique()}`), groupIds: [group.id] }, admin.headers)).json();
    expect(model.groupIds).toEqual([group.id]);
    const refused = await send('DELETE', `/api/groups/${group.id}`, undefined, admin.headers);
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.message).toContain(model.name);
    expect((await send('PUT', `/api/models/${model.id}`, { groupIds: ['grp_missing'] }, admin.headers)).status).toBe(400);
    expect((await send('POST', '/api/agents', { name: 'Ghost', groupIds: ['grp_missing'] }, admin.headers)).status).toBe(400);
    expect((await send('POST', '/api/agents', { name: 'Ghost', groupIds: 'everyone' }, admin.headers)).status).toBe(400);
    expect((await send('PUT', `/api/models/${model.id}`, { groupIds: [] }, admin.headers)).status).toBe(200);
    // A prompt shared with the group holds it too; once unshared, the group goes and the prompt forgets it.
    const command = `grp-${unique()}`.toLowerCase();
    const prompt = await (await send('POST', '/api/prompts', { command, title: 'For the group', content: 'x', shared: true, groupIds: [group.id] }, admin.headers)).json();
    const held = await send('DELETE', `/api/groups/${group.id}`, undefined, admin.headers);
    expect(held.status).toBe(409);
    expect((await held.json()).error.message).toContain(`prompt '/${command}'`);
    expect((await send('PATCH', `/api/prompts/${prompt.id}`, { shared: false }, admin.headers)).status).toBe(200);
    expect((await send('DELETE', `/api/groups/${group.id}`, undefined, admin.headers)).status).toBe(204);
    const listed = (await (await send('GET', '/api/prompts', undefined, admin.headers)).json()) as { items: { id: string; groupIds: string[] }[] };
    expect(listed.items.find((item) => item.id === prompt.id)?.groupIds).toEqual([]);
  });
});

describe('models and agents limited to groups', () => {
  it('are offered only to members and admins; anyone else naming one gets 403 and nothing is created; a member added sees them', async () => {
    const group = await newGroup(`Research ${unique()}`);
    const everyone = await (await send('POST', '/api/models', modelInput(`Everyday ${unique()}`), admin.headers)).json();
    const costly = await (await send('POST', '/api/models', { ...modelInput(`Costly ${unique()}`), groupIds: [group.id] }, admin.headers)).json();
    const analyst = await (await send('POST', '/api/agents', { name: `Analyst ${unique()}`, groupIds: [group.id] }, admin.headers)).json();
    const outsider = await t.signUp('user');

    const offered = await chatOptions(outsider.headers);
    expect(offered.models.map((model) => model.id)).toContain(everyone.id);
    expect(offered.models.map((model) => model.id)).not.toContain(costly.id);
    expect(offered.agents.map((agent) => agent.id)).not.toContain(analyst.id);
    const forAdmin = await chatOptions(admin.headers);
    expect(forAdmin.models.map((model) => model.id)).toContain(costly.id);
    expect(forAdmin.agents.map((agent) => agent.id)).toContain(analyst.id);

    const session = await (await send('POST', '/api/sessions', {}, outsider.headers)).json();
    const [runsBefore, sessionsBefore] = [await countOf(runs, outsider.user.id), await countOf(chatSessions, outsider.user.id)];
    const byModel = await send('POST', `/api/sessions/${session.id}/runs`, { content: 'Hello', modelId: costly.id }, outsider.headers);
    expect(byModel.status).toBe(403);
    expect((await byModel.json()).error).toMatchObject({ code: 'forbidden', message: expect.stringContaining(`Model '${costly.name}' is only for some groups`) });
    const byAgent = await send('POST', `/api/sessions/${session.id}/runs`, { content: 'Hello', agentId: analyst.id }, outsider.headers);
    expect(byAgent.status).toBe(403);
    expect((await byAgent.json()).error.message).toContain(`Agent '${analyst.name}' is only for some groups`);
    expect((await send('POST', '/api/sessions', { agentId: analyst.id }, outsider.headers)).status).toBe(403);
    expect(await countOf(runs, outsider.user.id)).toBe(runsBefore);
    expect(await countOf(chatSessions, outsider.user.id)).toBe(sessionsBefore);
    expect((await t.db.select({ value: count() }).from(messages).where(eq(messages.sessionId, session.id)))[0]!.value).toBe(0);
    // Nor can a schedule be set up with them.
    expect((await send('POST', '/api/schedules', { name: 'Nightly', prompt: 'Sum up', cron: '0 3 * * *', timezone: 'UTC', modelId: costly.id }, outsider.headers)).status).toBe(403);

    const adminSession = await (await send('POST', '/api/sessions', { agentId: analyst.id }, admin.headers)).json();
    expect((await send('POST', `/api/sessions/${adminSession.id}/runs`, { content: 'Hello', modelId: costly.id }, admin.headers)).status).toBe(202);

    expect((await send('PUT', `/api/groups/${group.id}/members/${outsider.user.id}`, undefined, admin.headers)).status).toBe(204);
    const now = await chatOptions(outsider.headers);
    expect(now.models.map((model) => model.id)).toContain(costly.id);
    expect(now.agents.map((agent) => agent.id)).toContain(analyst.id);
    expect((await send('POST', `/api/sessions/${session.id}/runs`, { content: 'Hello', modelId: costly.id, agentId: analyst.id }, outsider.headers)).status).toBe(202);
  });

  it('an agent an admin set to use a group-limited model answers everyone who may use the agent, with that model', async () => {
    const group = await newGroup();
    const costly = await (await send('POST', '/api/models', { ...modelInput(`Shared costly ${unique()}`), groupIds: [group.id] }, admin.headers)).json();
    const agent = await (await send('POST', '/api/agents', { name: `Uses costly ${unique()}`, modelId: costly.id }, admin.headers)).json();
    const session = await (await send('POST', '/api/sessions', { agentId: agent.id }, user.headers)).json();
    const accepted = await send('POST', `/api/sessions/${session.id}/runs`, { content: 'Hello' }, user.headers);
    expect(accepted.status).toBe(202);
    const run = await (await send('GET', `/api/runs/${(await accepted.json()).runId}`, undefined, user.headers)).json();
    expect(run.modelId).toBe(costly.id);
  });
});
