import { llmModels } from '@agentq/shared/db';
import { getModelWithKey } from '@agentq/shared/services';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_APP_SECRET } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.signUp('admin');
});

afterAll(async () => {
  await t.close();
});

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = admin.headers) =>
  t.app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
const modelInput = { name: 'Fake GPT', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'fake-model' };

describe('models API', () => {
  it('creates (201), lists, gets, updates and deletes a model', async () => {
    const created = await send('POST', '/api/models', { ...modelInput, supportsReasoning: true });
    expect(created.status).toBe(201);
    const model = await created.json();
    expect(model).toMatchObject({ ...modelInput, supportsReasoning: true, enabled: true, hasApiKey: false });
    expect(model.id).toMatch(/^mdl_/);

    const list = await send('GET', '/api/models');
    expect(list.status).toBe(200);
    expect((await list.json()).items.map((item: { id: string }) => item.id)).toContain(model.id);
    expect(await (await send('GET', `/api/models/${model.id}`)).json()).toEqual(model);

    const updated = await send('PUT', `/api/models/${model.id}`, { enabled: false, name: 'Renamed' });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ name: 'Renamed', enabled: false, supportsReasoning: true, baseUrl: modelInput.baseUrl });

    expect((await send('DELETE', `/api/models/${model.id}`)).status).toBe(204);
    expect((await send('GET', `/api/models/${model.id}`)).status).toBe(404);
    expect((await send('PUT', `/api/models/${model.id}`, { name: 'x' })).status).toBe(404);
    expect((await send('DELETE', `/api/models/${model.id}`)).status).toBe(404);
  });

  it('takes and returns "Names chats" (off unless set), and the worker\'s cached model read follows it', async () => {
    const plain = await (await send('POST', '/api/models', modelInput)).json();
    expect(plain.namesChats).toBe(false);

    const created = await send('POST', '/api/models', { ...modelInput, namesChats: true });
    expect(created.status).toBe(201);
    const model = await created.json();
    expect(model.namesChats).toBe(true);
    expect((await (await send('GET', `/api/models/${model.id}`)).json()).namesChats).toBe(true);
    expect((await getModelWithKey(t.db, model.id, TEST_APP_SECRET)).namesChats).toBe(true);

    const renamed = await (await send('PUT', `/api/models/${model.id}`, { name: 'Still names chats' })).json();
    expect(renamed.namesChats).toBe(true);
    const off = await send('PUT', `/api/models/${model.id}`, { namesChats: false });
    expect(off.status).toBe(200);
    expect((await off.json()).namesChats).toBe(false);
    expect((await (await send('GET', '/api/models')).json()).items.find((item: { id: string }) => item.id === model.id).namesChats).toBe(false);
    expect((await getModelWithKey(t.db, model.id, TEST_APP_SECRET)).namesChats).toBe(false);

    for (const value of ['yes', 1, null]) {
      const refused = await send('POST', '/api/models', { ...modelInput, namesChats: value });
      expect(refused.status, JSON.stringify(value)).toBe(400);
      expect((await refused.json()).error.issues.map((issue: { path: string[] }) => issue.path.join('.'))).toEqual(['namesChats']);
      expect((await send('PUT', `/api/models/${model.id}`, { namesChats: value })).status).toBe(400);
    }
    expect((await (await send('GET', `/api/models/${model.id}`)).json()).namesChats).toBe(false);
  });

  it('takes and returns "Suggests follow-ups" (off unless set) for admins only, and the worker\'s model read follows it', async () => {
    const plain = await (await send('POST', '/api/models', modelInput)).json();
    expect(plain.suggestsFollowUps).toBe(false);

    const created = await send('POST', '/api/models', { ...modelInput, suggestsFollowUps: true });
    expect(created.status).toBe(201);
    const model = await created.json();
    expect(model.suggestsFollowUps).toBe(true);
    expect((await (await send('GET', `/api/models/${model.id}`)).json()).suggestsFollowUps).toBe(true);
    expect((await getModelWithKey(t.db, model.id, TEST_APP_SECRET)).suggestsFollowUps).toBe(true);

    const renamed = await (await send('PUT', `/api/models/${model.id}`, { name: 'Still suggests' })).json();
    expect(renamed.suggestsFollowUps).toBe(true);
    const off = await send('PUT', `/api/models/${model.id}`, { suggestsFollowUps: false });
    expect(off.status).toBe(200);
    expect((await off.json()).suggestsFollowUps).toBe(false);
    expect((await getModelWithKey(t.db, model.id, TEST_APP_SECRET)).suggestsFollowUps).toBe(false);

    for (const value of ['yes', 1, null]) {
      const refused = await send('POST', '/api/models', { ...modelInput, suggestsFollowUps: value });
      expect(refused.status, JSON.stringify(value)).toBe(400);
      expect((await refused.json()).error.issues.map((issue: { path: string[] }) => issue.path.join('.'))).toEqual(['suggestsFollowUps']);
      expect((await send('PUT', `/api/models/${model.id}`, { suggestsFollowUps: value })).status).toBe(400);
    }
    const user = await t.signUp('user');
    expect((await send('PUT', `/api/models/${model.id}`, { suggestsFollowUps: true }, user.headers)).status).toBe(403);
    expect((await (await send('GET', `/api/models/${model.id}`)).json()).suggestsFollowUps).toBe(false);
  });

  it('takes and returns prices per million tokens (none unless set), refuses bad ones, and the worker\'s model read follows them', async () => {
    const plain = await (await send('POST', '/api/models', modelInput)).json();
    expect(plain).toMatchObject({ inputPrice: null, outputPrice: null });

    const created = await send('POST', '/api/models', { ...modelInput, inputPrice: 2.5, outputPrice: 10 });
    expect(created.status).toBe(201);
    const model = await created.json();
    expect(model).toMatchObject({ inputPrice: 2.5, outputPrice: 10 });
    expect(await getModelWithKey(t.db, model.id, TEST_APP_SECRET)).toMatchObject({ inputPrice: 2.5, outputPrice: 10 });

    const changed = await send('PUT', `/api/models/${model.id}`, { inputPrice: 0.000125, outputPrice: null });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ inputPrice: 0.000125, outputPrice: null });
    expect(await getModelWithKey(t.db, model.id, TEST_APP_SECRET)).toMatchObject({ inputPrice: 0.000125, outputPrice: null });

    for (const [value, message] of [[-1, 'negative'], [0.0000001, 'decimals'], [100_001, 'at most'], ['3', 'number']] as const) {
      const refused = await send('PUT', `/api/models/${model.id}`, { inputPrice: value });
      expect(refused.status, String(value)).toBe(400);
      const issues = (await refused.json()).error.issues as { path: string[]; message: string }[];
      expect(issues.map((issue) => issue.path.join('.'))).toEqual(['inputPrice']);
      expect(issues[0]!.message.toLowerCase()).toContain(message);
    }
    expect((await (await send('GET', `/api/models/${model.id}`)).json()).inputPrice).toBe(0.000125);
  });

  it('never returns the API key, stores it encrypted, and keeps / replaces / clears it on update', async () => {
    const secret = 'sk-secret-123';
    const bodies: string[] = [];
    const record = async (response: Response) => {
      const text = await response.text();
      bodies.push(text);
      return JSON.parse(text);
    };

    const created = await record(await send('POST', '/api/models', { ...modelInput, apiKey: secret }));
    expect(created.hasApiKey).toBe(true);
    await record(await send('GET', '/api/models'));
    await record(await send('GET', `/api/models/${created.id}`));
    const renamed = await record(await send('PUT', `/api/models/${created.id}`, { name: 'Keeps the key' }));
    expect(renamed.hasApiKey).toBe(true);
    for (const body of bodies) {
      expect(body).not.toContain(secret);
      expect(body).not.toMatch(/apiKeyEncrypted|"apiKey"/);
    }

    const [row] = await t.db.select({ apiKeyEncrypted: llmModels.apiKeyEncrypted }).from(llmModels).where(eq(llmModels.id, created.id));
    expect(row?.apiKeyEncrypted).toMatch(/^v1:/);
    expect(row?.apiKeyEncrypted).not.toContain(secret);
    expect((await getModelWithKey(t.db, created.id, TEST_APP_SECRET)).apiKey).toBe(secret);

    const replaced = await record(await send('PUT', `/api/models/${created.id}`, { apiKey: 'sk-other-456' }));
    expect(replaced.hasApiKey).toBe(true);
    expect(bodies.at(-1)).not.toContain('sk-other-456');
    expect((await getModelWithKey(t.db, created.id, TEST_APP_SECRET)).apiKey).toBe('sk-other-456');

    const cleared = await record(await send('PUT', `/api/models/${created.id}`, { apiKey: null }));
    expect(cleared.hasApiKey).toBe(false);
    expect((await getModelWithKey(t.db, created.id, TEST_APP_SECRET)).apiKey).toBeNull();
  });

  it('answers 400 with issues for bad input, and never echoes a key in the error', async () => {
    const badUrl = await send('POST', '/api/models', { ...modelInput, baseUrl: 'ftp://example.com', apiKey: 'sk-secret-123' });
    expect(badUrl.status).toBe(400);
    const text = await badUrl.text();
    expect(text).not.toContain('sk-secret-123');
    expect(JSON.parse(text).error.issues.map((issue: { path: string[] }) => issue.path.join('.'))).toContain('baseUrl');

    const missing = await send('POST', '/api/models', { name: 'No model id' });
    expect(missing.status).toBe(400);
    const paths = (await missing.json()).error.issues.map((issue: { path: string[] }) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['baseUrl', 'modelId']));

    expect((await send('POST', '/api/models', { ...modelInput, apiKey: '' })).status).toBe(400);
    expect((await send('POST', '/api/models', { ...modelInput, enabled: 'yes' })).status).toBe(400);
    const model = await (await send('POST', '/api/models', modelInput)).json();
    expect((await send('PUT', `/api/models/${model.id}`, { baseUrl: 'not a url' })).status).toBe(400);
    const malformed = await t.app.request('/api/models', { method: 'POST', headers: admin.headers, body: '{"name":' });
    expect(malformed.status).toBe(400);
  });

  it('is admin-only: 403 for a user, 401 anonymous', async () => {
    const user = await t.signUp('user');
    expect((await send('GET', '/api/models', undefined, user.headers)).status).toBe(403);
    expect((await send('POST', '/api/models', modelInput, user.headers)).status).toBe(403);
    expect((await send('GET', '/api/models/mdl_x', undefined, user.headers)).status).toBe(403);
    expect((await t.app.request('/api/models')).status).toBe(401);
    expect((await t.app.request('/api/models/mdl_x', { method: 'DELETE' })).status).toBe(401);
  });
});
