import { agentDocumentRevisions, agentDocuments } from '@agentq/shared/db';
import { createDocument } from '@agentq/shared/services';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let owner: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.signUp('user');
});
afterAll(() => t.close());

type Account = { headers: Record<string, string> };

const request = (method: string, path: string, account: Account | null, body?: unknown) =>
  t.app.request(path, { method, headers: account ? account.headers : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
const get = (path: string, account: Account = owner) => request('GET', path, account);
const post = (path: string, body: unknown, account: Account = owner) => request('POST', path, account, body);
const put = (path: string, body: unknown, account: Account = owner) => request('PUT', path, account, body);

async function create(body: Record<string, unknown>, account: Account = owner) {
  const response = await post('/api/agent-documents', body, account);
  expect(response.status).toBe(201);
  return response.json();
}

async function snapshot(id: string) {
  return {
    documents: await t.db.select().from(agentDocuments).where(eq(agentDocuments.id, id)),
    revisions: await t.db.select().from(agentDocumentRevisions).where(eq(agentDocumentRevisions.documentId, id)).orderBy(agentDocumentRevisions.version),
  };
}

describe('/api/agent-documents', () => {
  it('answers 401 without a session on every route', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/agent-documents'],
      ['POST', '/api/agent-documents', { title: 'x', content: 'y' }],
      ['GET', '/api/agent-documents/ad_x'],
      ['PUT', '/api/agent-documents/ad_x', { title: 'x' }],
      ['DELETE', '/api/agent-documents/ad_x'],
      ['GET', '/api/agent-documents/ad_x/revisions'],
      ['POST', '/api/agent-documents/ad_x/restore', { version: 1 }],
    ];
    for (const [method, path, body] of routes) expect((await request(method, path, null, body)).status, `${method} ${path}`).toBe(401);
  });

  it('creates (201, a document by default, no sessionId accepted or shown), reads, updates, deletes (204)', async () => {
    const created = await create({ title: 'Weekly report', content: '# Week 12\n\nShipped the documents API.', tags: ['report', 'weekly'], sessionId: 'cs_forged' });
    expect(created).toMatchObject({ type: 'document', title: 'Weekly report', summary: 'Week 12 Shipped the documents API.', tags: 'report, weekly', version: 1 });
    expect(created.id).toMatch(/^ad_/);
    expect(created).not.toHaveProperty('sessionId');
    expect(created).not.toHaveProperty('searchVector');
    expect((await snapshot(created.id)).documents[0]!.sessionId).toBeNull();

    const fetched = await get(`/api/agent-documents/${created.id}`);
    expect(fetched.status).toBe(200);
    expect(await fetched.json()).toMatchObject({ id: created.id, content: '# Week 12\n\nShipped the documents API.' });

    const updated = await put(`/api/agent-documents/${created.id}`, { content: 'Rewritten.', expectedVersion: 1 });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ version: 2, content: 'Rewritten.', summary: 'Rewritten.', title: 'Weekly report' });

    expect((await request('DELETE', `/api/agent-documents/${created.id}`, owner)).status).toBe(204);
    expect((await get(`/api/agent-documents/${created.id}`)).status).toBe(404);
    expect(await snapshot(created.id)).toEqual({ documents: [], revisions: [] });
  });

  it('answers 409 for a stale expectedVersion and keeps the document as it was', async () => {
    const created = await create({ title: 'Shared plan', content: 'v1' });
    expect((await put(`/api/agent-documents/${created.id}`, { content: 'v2', expectedVersion: 1 })).status).toBe(200);
    const before = await snapshot(created.id);
    const stale = await put(`/api/agent-documents/${created.id}`, { content: 'lost', expectedVersion: 1 });
    expect(stale.status).toBe(409);
    const body = await stale.json();
    expect(body.error).toMatchObject({ code: 'conflict', details: { expectedVersion: 1, currentVersion: 2 } });
    expect(body.error.message).toMatch(/at version 2, not the expected version 1/);
    expect(await snapshot(created.id)).toEqual(before);
  });

  it('answers 400 with issues for bad input and stores nothing', async () => {
    const user = await t.signUp('user');
    const missing = await post('/api/agent-documents', { content: 'no title' }, user);
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.issues[0].path).toEqual(['title']);
    expect((await post('/api/agent-documents', { title: 'x', content: 'y', type: 'secret' }, user)).status).toBe(400);
    const tooLong = await post('/api/agent-documents', { title: 'Big', content: 'x'.repeat(50_001) }, user);
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).error.message).toMatch(/exceeds the maximum length: it is 50001 characters, the limit is 50000/);
    expect((await get('/api/agent-documents?limit=0', user)).status).toBe(400);
    expect((await get('/api/agent-documents?cursor=abc', user)).status).toBe(400);
    expect((await (await get('/api/agent-documents', user)).json()).total).toBe(0);
    const created = await create({ title: 'x', content: 'y' }, user);
    expect((await put(`/api/agent-documents/${created.id}`, { expectedVersion: 0 }, user)).status).toBe(400);
    expect((await post(`/api/agent-documents/${created.id}/restore`, { version: 'one' }, user)).status).toBe(400);
  });

  it('lists newest first with type filter and cursor pagination; q searches full-text, ranked with snippets', async () => {
    const user = await t.signUp('user');
    const passing = await create({ type: 'document', title: 'Trip notes', content: `${'We walked around the old town. '.repeat(20)}The budget came up once.` }, user);
    const focused = await create({ type: 'memory', title: 'Budget decisions', content: 'The budget doubles; the marketing budget stays.', tags: 'budget' }, user);
    const other = await create({ type: 'memory', title: 'Favourite colour', content: 'Teal.' }, user);

    const all = await (await get('/api/agent-documents', user)).json();
    expect(all).toMatchObject({ total: 3, nextCursor: null });
    expect(all.items.map((item: { id: string }) => item.id)).toEqual([other.id, focused.id, passing.id]);
    expect(all.items[0]).not.toHaveProperty('content');

    const memories = await (await get('/api/agent-documents?type=memory', user)).json();
    expect(memories.items.map((item: { id: string }) => item.id)).toEqual([other.id, focused.id]);

    const first = await (await get('/api/agent-documents?limit=2', user)).json();
    expect(first).toMatchObject({ total: 3, nextCursor: '2' });
    const second = await (await get(`/api/agent-documents?limit=2&cursor=${first.nextCursor}`, user)).json();
    expect(second.items.map((item: { id: string }) => item.id)).toEqual([passing.id]);
    expect(second.nextCursor).toBeNull();
    expect((await (await get('/api/agent-documents?limit=1&offset=2', user)).json()).items[0].id).toBe(passing.id);

    const search = await (await get('/api/agent-documents?q=budgets', user)).json();
    expect(search.total).toBe(2);
    expect(search.items.map((item: { id: string }) => item.id)).toEqual([focused.id, passing.id]);
    expect(search.items[0].rank).toBeGreaterThan(search.items[1].rank);
    expect(search.items[1].snippet).toContain('**budget**');
    expect((await (await get('/api/agent-documents?q=budget&type=document', user)).json()).items.map((item: { id: string }) => item.id)).toEqual([passing.id]);
  });

  it('keeps revisions and restores one as a new version; an unknown version is 404', async () => {
    const created = await create({ title: 'Policy', content: 'First.', tags: 'a' });
    await put(`/api/agent-documents/${created.id}`, { title: 'Policy (v2)', content: 'Second.', tags: null });
    const revisions = await (await get(`/api/agent-documents/${created.id}/revisions`)).json();
    expect(revisions.items.map((revision: { version: number }) => revision.version)).toEqual([2, 1]);
    expect(revisions.items[1]).toMatchObject({ documentId: created.id, version: 1, title: 'Policy', content: 'First.', tags: 'a', createdByUserId: owner.user.id, createdByRunId: null });
    expect(revisions.items[1].createdAt).toBeTruthy();

    const restored = await post(`/api/agent-documents/${created.id}/restore`, { version: 1 });
    expect(restored.status).toBe(200);
    expect(await restored.json()).toMatchObject({ id: created.id, version: 3, title: 'Policy', content: 'First.', tags: 'a' });
    expect((await (await get(`/api/agent-documents/${created.id}/revisions`)).json()).items).toHaveLength(3);

    const missing = await post(`/api/agent-documents/${created.id}/restore`, { version: 9 });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toMatch(/has no version 9/);
    expect((await post(`/api/agent-documents/${created.id}/restore`, { version: 1, expectedVersion: 2 })).status).toBe(409);
  });

  it("answers 404 on every route for another user's document and changes nothing", async () => {
    const stranger = await t.signUp('user');
    // Created the way the agent does, with a session: still invisible to others.
    const document = await createDocument(t.db, { userId: owner.user.id, runId: 'run_x', sessionId: 'cs_x' }, { type: 'memory', title: 'Private memory', content: 'line one', tags: 'private' });
    const before = await snapshot(document.id);
    const path = `/api/agent-documents/${document.id}`;
    const attempts: [string, string, unknown?][] = [
      ['GET', path],
      ['PUT', path, { title: 'pwned' }],
      ['PUT', path, { content: 'pwned', expectedVersion: 1 }],
      ['DELETE', path],
      ['GET', `${path}/revisions`],
      ['POST', `${path}/restore`, { version: 1 }],
    ];
    for (const [method, target, body] of attempts) {
      const response = await request(method, target, stranger, body);
      expect(response.status, `${method} ${target}`).toBe(404);
      expect((await response.json()).error.message).toBe(`Document ${document.id} not found or no access`);
    }
    expect(await (await get('/api/agent-documents', stranger)).json()).toMatchObject({ items: [], total: 0 });
    expect(await (await get('/api/agent-documents?q=private', stranger)).json()).toMatchObject({ items: [], total: 0 });
    expect(await snapshot(document.id)).toEqual(before);
    expect((await get(path)).status).toBe(200);
  });
});
