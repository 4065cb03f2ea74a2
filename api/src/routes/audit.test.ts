import { messages, runs } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { createModel } from '@agentq/shared/services';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_APP_SECRET } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let user: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.signUp('admin');
  user = await t.signUp('user');
  await createModel(t.db, { name: 'Audit test model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'scripted', apiKey: null }, TEST_APP_SECRET);
});
afterAll(() => t.close());

type Account = { headers: Record<string, string> };
type AuditEvent = { id: string; at: string; action: string; targetType: string; targetId: string; details: Record<string, unknown> | null; actor: { id: string; email: string | null; name: string | null } | null };
const request = (method: string, path: string, account: Account | null = admin, body?: unknown) =>
  t.app.request(path, { method, headers: account ? account.headers : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

async function audit(query: string): Promise<{ items: AuditEvent[]; nextCursor: string | null; text: string }> {
  const response = await request('GET', `/api/admin/audit${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  const text = await response.text();
  return { ...JSON.parse(text), text };
}

const SECRET_KEY = 'sk-audit-never-shown-1234';

describe('the audit log', () => {
  it('is for admins only: 401 anonymous, 403 for a user; in the OpenAPI document', async () => {
    expect((await request('GET', '/api/admin/audit', null)).status).toBe(401);
    expect((await request('GET', '/api/admin/audit', user)).status).toBe(403);
    const { paths } = await (await t.app.request('/api/openapi.json')).json();
    expect(Object.keys(paths)).toContain('/admin/audit');
  });

  it("records an admin's changes to a model, an agent and a tool, newest first, naming changed fields and never a secret's value", async () => {
    const model = await (await request('POST', '/api/models', admin, { name: 'Audited', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm', apiKey: SECRET_KEY })).json();
    expect((await request('PUT', `/api/models/${model.id}`, admin, { name: 'Audited again', apiKey: `${SECRET_KEY}-2` })).status).toBe(200);
    expect((await request('DELETE', `/api/models/${model.id}`)).status).toBe(204);
    const byModel = await audit(`?targetId=${model.id}`);
    expect(byModel.items.map(({ action, targetType, details, actor }) => ({ action, targetType, details, actor: actor?.id }))).toEqual([
      { action: 'model.delete', targetType: 'model', details: { name: 'Audited again' }, actor: admin.user.id },
      { action: 'model.update', targetType: 'model', details: { name: 'Audited again', fields: ['name', 'apiKey'] }, actor: admin.user.id },
      { action: 'model.create', targetType: 'model', details: { name: 'Audited' }, actor: admin.user.id },
    ]);
    expect(byModel.items[0]!.actor).toMatchObject({ email: admin.email });
    expect(byModel.text).not.toContain(SECRET_KEY);

    const agent = await (await request('POST', '/api/agents', admin, { name: 'Audited agent', systemPrompt: 'Be brief.' })).json();
    expect((await request('PUT', `/api/agents/${agent.id}`, admin, { maxSteps: 3 })).status).toBe(200);
    expect((await request('DELETE', `/api/agents/${agent.id}`)).status).toBe(204);
    expect((await audit(`?targetId=${agent.id}`)).items.map(({ action, details }) => [action, details])).toEqual([
      ['agent.delete', { name: 'Audited agent' }],
      ['agent.update', { name: 'Audited agent', fields: ['maxSteps'] }],
      ['agent.create', { name: 'Audited agent' }],
    ]);

    const slug = `search-${Date.now().toString(36)}`;
    const created = await request('POST', '/api/agent-tools', admin, { name: 'Search', slug, type: 'web-search', config: { provider: 'brave', baseUrl: 'http://127.0.0.1:9' }, secrets: { apiKey: SECRET_KEY } });
    expect(created.status, await created.clone().text()).toBe(201);
    const tool = await created.json();
    expect((await request('PUT', `/api/agent-tools/${tool.id}`, admin, { enabled: false, secrets: { apiKey: `${SECRET_KEY}-3` } })).status).toBe(200);
    expect((await request('DELETE', `/api/agent-tools/${tool.id}`)).status).toBe(204);
    const byTool = await audit(`?targetId=${tool.id}`);
    expect(byTool.items.map(({ action, details }) => [action, details])).toEqual([
      ['tool.delete', { slug, type: 'web-search' }],
      ['tool.update', { slug, fields: ['enabled', 'secrets'], secrets: ['apiKey'] }],
      ['tool.create', { slug, type: 'web-search' }],
    ]);
    expect(byTool.text).not.toContain(SECRET_KEY);

    // A category, and one action of it.
    const models = await audit('?action=model&limit=200');
    expect(new Set(models.items.map((event) => event.action.split('.')[0]))).toEqual(new Set(['model']));
    expect(models.items.map((event) => event.targetId)).toContain(model.id);
    const updates = await audit('?action=model.update&limit=200');
    expect(new Set(updates.items.map((event) => event.action))).toEqual(new Set(['model.update']));
  });

  it('records sign-ins and failed ones with the client address, and who shared or unshared a chat', async () => {
    const failed = await request('POST', '/api/auth/login', null, { email: user.email.toUpperCase(), password: 'not the password' });
    expect(failed.status).toBe(401);
    const signedIn = await request('POST', '/api/auth/login', null, { email: user.email, password: user.password });
    expect(signedIn.status).toBe(200);
    const failures = await audit(`?action=auth.sign-in-failed&targetId=${encodeURIComponent(user.email.toLowerCase())}`);
    expect(failures.items).toHaveLength(1);
    expect(failures.items[0]).toMatchObject({ actor: null, targetType: 'email', details: { clientAddress: expect.any(String) } });
    expect(failures.text).not.toContain('not the password');
    const signIns = await audit(`?action=auth.sign-in&actorUserId=${user.user.id}`);
    // signUp signed in once, and now again.
    expect(signIns.items).toHaveLength(2);
    expect(signIns.items[0]).toMatchObject({ targetType: 'user', targetId: user.user.id, actor: { id: user.user.id, email: user.email } });

    const session = (await (await request('POST', '/api/sessions', user, {})).json()) as { id: string };
    const runId = ((await (await request('POST', `/api/sessions/${session.id}/runs`, user, { content: 'Share me' })).json()) as { runId: string }).runId;
    await t.db.insert(messages).values({ id: newId('message'), sessionId: session.id, role: 'assistant', parts: [{ type: 'text', text: 'Shared.' }], runId });
    await t.db.update(runs).set({ status: 'succeeded', finishedAt: new Date() }).where(eq(runs.id, runId));
    expect((await request('PUT', `/api/sessions/${session.id}/share`, user)).status).toBe(201);
    expect((await request('PUT', `/api/sessions/${session.id}/share`, user)).status).toBe(200);
    expect((await request('DELETE', `/api/sessions/${session.id}/share`, user)).status).toBe(204);
    const shares = await audit(`?action=chat&targetId=${session.id}`);
    expect(shares.items.map(({ action, actor }) => [action, actor?.id])).toEqual([
      ['chat.unshare', user.user.id],
      ['chat.share-update', user.user.id],
      ['chat.share', user.user.id],
    ]);
  });

  it('pages with nextCursor and filters by time; bad filters are 400 with the issue', async () => {
    const first = await audit('?limit=2');
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toBe(first.items[1]!.id);
    const second = await audit(`?limit=2&cursor=${first.nextCursor}`);
    expect(Number(second.items[0]!.id)).toBeLessThan(Number(first.items[1]!.id));

    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await audit(`?since=${encodeURIComponent(future)}`)).items).toEqual([]);
    const inWindow = await audit(`?since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}&until=${encodeURIComponent(future)}&limit=1`);
    expect(inWindow.items).toHaveLength(1);

    for (const [query, path] of [
      ['?action=nothing', 'action'],
      ['?action=model.update.now', 'action'],
      ['?cursor=abc', 'cursor'],
      ['?limit=0', 'limit'],
      ['?since=yesterday', 'since'],
      [`?since=${encodeURIComponent(future)}&until=${encodeURIComponent(new Date().toISOString())}`, 'until'],
    ]) {
      const response = await request('GET', `/api/admin/audit${query}`);
      expect(response.status, query).toBe(400);
      expect((await response.json()).error.issues.map((issue: { path: string[] }) => issue.path.join('.')), query).toContain(path);
    }
  });
});
