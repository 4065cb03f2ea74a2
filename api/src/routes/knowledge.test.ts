import { ingestKnowledgeFile } from '@agentq/shared/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../../infra/fake-llm/server';
import { createTestApp, TEST_APP_SECRET } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Account = Awaited<ReturnType<typeof t.signUp>>;
type Base = { id: string; name: string; description: string };
type FileView = { id: string; name: string; mediaType: string; size: number; status: string; chunkCount: number; error: string | null };

const send = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });

function upload(account: Account, baseId: string, name: string, data: Uint8Array<ArrayBuffer> | string) {
  const form = new FormData();
  form.append('file', new File([data], name, { type: 'application/octet-stream' }));
  return t.app.request(`/api/knowledge/${baseId}/files`, { method: 'POST', headers: { cookie: account.cookie }, body: form });
}

async function newBase(account: Account, name = 'Handbook'): Promise<Base> {
  const response = await send('POST', '/api/knowledge', account, { name });
  expect(response.status).toBe(201);
  return (await response.json()) as Base;
}

const slug = (label: string) => `${label}_${Math.random().toString(36).slice(2, 8)}`;

describe('knowledge bases API', () => {
  it('creates, lists, renames and deletes a base; 400 with the issues for bad input', async () => {
    const owner = await t.signUp();
    const empty = await send('POST', '/api/knowledge', owner, { name: '  ' });
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.issues[0].path).toEqual(['name']);
    expect((await send('POST', '/api/knowledge', owner, { name: 'x'.repeat(101) })).status).toBe(400);
    expect((await send('POST', '/api/knowledge', owner, { name: 'ok', description: 5 })).status).toBe(400);

    const base = await newBase(owner, 'Policies');
    expect(base).toMatchObject({ name: 'Policies', description: '' });
    const list = (await (await send('GET', '/api/knowledge', owner)).json()) as { items: (Base & { fileCount: number; chunkCount: number })[] };
    expect(list.items).toEqual([expect.objectContaining({ id: base.id, fileCount: 0, chunkCount: 0 })]);
    const renamed = await send('PATCH', `/api/knowledge/${base.id}`, owner, { name: 'HR policies', description: 'Leave and expenses' });
    expect(await renamed.json()).toMatchObject({ name: 'HR policies', description: 'Leave and expenses' });
    expect((await send('PATCH', `/api/knowledge/${base.id}`, owner, { name: '' })).status).toBe(400);
    expect((await send('DELETE', `/api/knowledge/${base.id}`, owner)).status).toBe(204);
    expect((await send('GET', `/api/knowledge/${base.id}`, owner)).status).toBe(404);
    expect((await t.app.request('/api/knowledge')).status).toBe(401);
  });

  it("answers 404 for every route on another user's base, and never lists it", async () => {
    const owner = await t.signUp();
    const other = await t.signUp('admin');
    const base = await newBase(owner);
    const file = (await (await upload(owner, base.id, 'a.md', '# A\n\nText.')).json()) as FileView;
    expect((await (await send('GET', '/api/knowledge', other)).json()).items).toEqual([]);
    for (const [method, path, body] of [
      ['GET', `/api/knowledge/${base.id}`],
      ['PATCH', `/api/knowledge/${base.id}`, { name: 'Stolen' }],
      ['DELETE', `/api/knowledge/${base.id}`],
      ['POST', `/api/knowledge/${base.id}/search`, { query: 'text' }],
      ['DELETE', `/api/knowledge/${base.id}/files/${file.id}`],
    ] as const) {
      expect((await send(method, path, other, body)).status, `${method} ${path}`).toBe(404);
    }
    expect((await upload(other, base.id, 'b.md', 'text')).status).toBe(404);
    expect((await send('GET', `/api/knowledge/${base.id}`, owner)).status).toBe(200);
  });

  it('uploads a file as processing and queues its ingestion; refuses images, binaries and oversized files', async () => {
    const owner = await t.signUp();
    const base = await newBase(owner);
    const response = await upload(owner, base.id, 'handbook.md', '# Leave\n\nStaff get 25 days of annual leave.');
    expect(response.status).toBe(201);
    const file = (await response.json()) as FileView;
    expect(file).toMatchObject({ name: 'handbook.md', mediaType: 'text/markdown', status: 'processing', chunkCount: 0, error: null });
    expect(file).not.toHaveProperty('data');
    const job = await t.queues.knowledgeIngestions.getJob(file.id);
    expect(job?.data).toEqual({ fileId: file.id });

    const png = await upload(owner, base.id, 'photo.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]));
    expect(png.status).toBe(415);
    expect((await png.json()).error.message).toContain('PDF files and UTF-8 text files');
    expect((await upload(owner, base.id, 'a.bin', new Uint8Array([0, 159, 146, 150]))).status).toBe(415);
    expect((await upload(owner, base.id, 'big.txt', 'a'.repeat(512 * 1024 + 1))).status).toBe(413);
    const noFile = await t.app.request(`/api/knowledge/${base.id}/files`, { method: 'POST', headers: { cookie: owner.cookie }, body: new FormData() });
    expect(noFile.status).toBe(400);

    const detail = (await (await send('GET', `/api/knowledge/${base.id}`, owner)).json()) as Base & { files: FileView[] };
    expect(detail.files.map((row) => row.name)).toEqual(['handbook.md']);
  });

  it('searches a base once its files are ingested; 400 for an empty query or a topK out of range', async () => {
    const owner = await t.signUp();
    const base = await newBase(owner);
    const leave = 'Staff get 25 days of annual leave each year, and unused days carry over until March. '.repeat(4).trim();
    const file = (await (await upload(owner, base.id, 'handbook.md', `# Leave\n\n${leave}\n\n# VPN\n\nThe VPN needs a hardware token.`)).json()) as FileView;
    await ingestKnowledgeFile(t.db, file.id, { appSecret: TEST_APP_SECRET, finalAttempt: true });
    const detail = (await (await send('GET', `/api/knowledge/${base.id}`, owner)).json()) as { files: FileView[] };
    expect(detail.files[0]).toMatchObject({ status: 'ready', chunkCount: 2 });

    const found = await send('POST', `/api/knowledge/${base.id}/search`, owner, { query: 'hardware token for the VPN', topK: 1 });
    expect(found.status).toBe(200);
    const body = (await found.json()) as { passages: { fileName: string; position: number; text: string }[] };
    expect(body.passages).toEqual([expect.objectContaining({ fileName: 'handbook.md', position: 1, text: '# VPN\n\nThe VPN needs a hardware token.' })]);
    expect((await send('POST', `/api/knowledge/${base.id}/search`, owner, { query: ' ' })).status).toBe(400);
    expect((await send('POST', `/api/knowledge/${base.id}/search`, owner, { query: 'x', topK: 21 })).status).toBe(400);

    expect((await send('DELETE', `/api/knowledge/${base.id}/files/${file.id}`, owner)).status).toBe(204);
    expect((await send('DELETE', `/api/knowledge/${base.id}/files/${file.id}`, owner)).status).toBe(404);
    expect(((await (await send('POST', `/api/knowledge/${base.id}/search`, owner, { query: 'VPN' })).json()) as { passages: unknown[] }).passages).toEqual([]);
  });

  it("lets an admin attach their own bases to a knowledge tool, never another user's (400 on the config path)", async () => {
    const admin = await t.signUp('admin');
    const user = await t.signUp();
    const own = await newBase(admin, 'Shared');
    const theirs = await newBase(user, 'Private');
    const refused = await send('POST', '/api/agent-tools', admin, { name: 'KB', slug: slug('kb'), type: 'knowledge', config: { knowledgeBaseIds: [theirs.id] } });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.issues.map((issue: { path: (string | number)[] }) => issue.path.join('.'))).toEqual(['config.knowledgeBaseIds.0']);
    const created = await send('POST', '/api/agent-tools', admin, { name: 'KB', slug: slug('kb'), type: 'knowledge', config: { knowledgeBaseIds: [own.id], topK: 3 } });
    expect(created.status).toBe(201);
    const tool = (await created.json()) as { id: string; config: unknown };
    expect(tool.config).toEqual({ knowledgeBaseIds: [own.id], userBases: 'none', topK: 3 });
    const sneaked = await send('PUT', `/api/agent-tools/${tool.id}`, admin, { config: { knowledgeBaseIds: [own.id, theirs.id] } });
    expect(sneaked.status).toBe(400);
  });
});

describe('re-indexing after an embedding model is set up (a database of its own: the flag is shared)', () => {
  let own: Awaited<ReturnType<typeof createTestApp>>;
  let llm: FakeLlm;
  beforeAll(async () => {
    own = await createTestApp({ privateDatabase: true });
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await own?.close();
    await llm?.close();
  });

  const call = (method: string, path: string, account: Account, body?: unknown) =>
    own.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const ingestQueued = async () => {
    for (const job of await own.queues.knowledgeIngestions.getJobs(['waiting'])) {
      await ingestKnowledgeFile(own.db, job.data.fileId, { appSecret: TEST_APP_SECRET, finalAttempt: true });
      await job.remove();
    }
  };

  it('queues the files no model (or another model) embedded and the failed ones, once; admins can do it for everyone', async () => {
    const owner = await own.signUp();
    const other = await own.signUp();
    const admin = await own.signUp('admin');
    const base = (await (await call('POST', '/api/knowledge', owner, { name: 'Handbook' })).json()) as Base;
    const form = new FormData();
    form.append('file', new File(['# Leave\n\nStaff get 25 days of annual leave.'], 'leave.md'));
    const file = (await (await own.app.request(`/api/knowledge/${base.id}/files`, { method: 'POST', headers: { cookie: owner.cookie }, body: form })).json()) as FileView;
    await ingestQueued();
    // No embedding model: nothing to re-index, and the file says no model embedded it.
    let detail = (await (await call('GET', `/api/knowledge/${base.id}`, owner)).json()) as { embeddingModel: string | null; files: (FileView & { embeddingModel: string | null })[] };
    expect(detail).toMatchObject({ embeddingModel: null, files: [{ id: file.id, status: 'ready', embeddingModel: null }] });
    expect(await (await call('POST', `/api/knowledge/${base.id}/reindex`, owner)).json()).toEqual({ queued: 0, embeddingModel: null });

    const model = await call('POST', '/api/models', admin, { name: 'Embeddings', baseUrl: llm.url, modelId: 'text-embedding-3-small', apiKey: 'sk-embed', embedsText: true });
    expect(model.status).toBe(201);
    detail = (await (await call('GET', `/api/knowledge/${base.id}`, owner)).json()) as typeof detail;
    expect(detail.embeddingModel).toBe('text-embedding-3-small');
    expect((await call('POST', `/api/knowledge/${base.id}/reindex`, other)).status).toBe(404);
    const reindexed = await call('POST', `/api/knowledge/${base.id}/reindex`, owner);
    expect(reindexed.status).toBe(202);
    expect(await reindexed.json()).toEqual({ queued: 1, embeddingModel: 'text-embedding-3-small' });
    // A second click while it is processing queues nothing more.
    expect(await (await call('POST', `/api/knowledge/${base.id}/reindex`, owner)).json()).toEqual({ queued: 0, embeddingModel: 'text-embedding-3-small' });
    detail = (await (await call('GET', `/api/knowledge/${base.id}`, owner)).json()) as typeof detail;
    expect(detail.files[0]).toMatchObject({ status: 'processing' });
    // Its old passages are still found meanwhile.
    expect(((await (await call('POST', `/api/knowledge/${base.id}/search`, owner, { query: 'annual leave' })).json()) as { passages: unknown[] }).passages).toHaveLength(1);
    llm.embeddings.length = 0;
    await ingestQueued();
    expect(llm.embeddings).toHaveLength(1);
    detail = (await (await call('GET', `/api/knowledge/${base.id}`, owner)).json()) as typeof detail;
    expect(detail.files[0]).toMatchObject({ status: 'ready', embeddingModel: 'text-embedding-3-small' });
    const found = (await (await call('POST', `/api/knowledge/${base.id}/search`, owner, { query: 'how much holiday' })).json()) as { mode: string; passages: { fileName: string }[] };
    expect(found).toMatchObject({ mode: 'hybrid', passages: [{ fileName: 'leave.md' }] });
    expect(await (await call('POST', `/api/knowledge/${base.id}/reindex`, owner)).json()).toEqual({ queued: 0, embeddingModel: 'text-embedding-3-small' });

    // Another user's file added while the model is down fails; an admin's re-index for everyone retries it.
    const theirs = (await (await call('POST', '/api/knowledge', other, { name: 'Notes' })).json()) as Base;
    const note = new FormData();
    note.append('file', new File(['Badges are renewed every January.'], 'badges.md'));
    await own.app.request(`/api/knowledge/${theirs.id}/files`, { method: 'POST', headers: { cookie: other.cookie }, body: note });
    llm.setEmbeddingError({ status: 503, message: 'overloaded' });
    await ingestQueued();
    llm.setEmbeddingError(null);
    expect(((await (await call('GET', `/api/knowledge/${theirs.id}`, other)).json()) as typeof detail).files[0]).toMatchObject({ status: 'failed' });
    expect((await call('POST', '/api/admin/knowledge/reindex', owner)).status).toBe(403);
    const all = await call('POST', '/api/admin/knowledge/reindex', admin);
    expect(all.status).toBe(202);
    expect(await all.json()).toEqual({ queued: 1, embeddingModel: 'text-embedding-3-small' });
    await ingestQueued();
    expect(((await (await call('GET', `/api/knowledge/${theirs.id}`, other)).json()) as typeof detail).files[0]).toMatchObject({ status: 'ready', embeddingModel: 'text-embedding-3-small', error: null });
    const audited = (await (await call('GET', '/api/admin/audit?action=model.reindex-knowledge', admin)).json()) as { items: { details: unknown }[] };
    expect(audited.items[0]?.details).toEqual({ queued: 1, embeddingModel: 'text-embedding-3-small' });
  });
});
