import { ingestKnowledgeFile } from '@agentq/shared/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardNonLoopbackConnections, startLoopbackServer, type LoopbackServer } from '../../../shared/src/tools/fetch/test-server';
import { createTestApp, TEST_APP_SECRET } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let site: LoopbackServer;
// What the loopback "site" serves, by path; tests change a page to see it fetched again.
const pages = new Map<string, { status?: number; type: string; body: string | Buffer }>();

beforeAll(async () => {
  t = await createTestApp();
  site = await startLoopbackServer((request, response) => {
    const page = pages.get(request.url ?? '');
    if (!page) return void response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not here</h1>');
    response.writeHead(page.status ?? 200, { 'content-type': page.type }).end(page.body);
  });
});
afterAll(async () => {
  await site.close();
  await t.close();
});

type Account = Awaited<ReturnType<typeof t.signUp>>;
type FileView = { id: string; name: string; mediaType: string; size: number; status: string; chunkCount: number; error: string | null; sourceUrl: string | null };

const send = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });

async function newBase(account: Account): Promise<string> {
  const response = await send('POST', '/api/knowledge', account, { name: 'Web' });
  return ((await response.json()) as { id: string }).id;
}

async function files(account: Account, baseId: string): Promise<FileView[]> {
  return ((await (await send('GET', `/api/knowledge/${baseId}`, account)).json()) as { files: FileView[] }).files;
}

/** Runs a queued ingestion job as the worker would (the test app has no worker), loopback allowed as the worker's tests do. */
async function runJob(jobId: string, options: { allowPrivateNetworks?: boolean; resolve?: (hostname: string) => Promise<string[]> } = {}) {
  const job = await t.queues.knowledgeIngestions.getJob(jobId);
  expect(job, jobId).toBeTruthy();
  return ingestKnowledgeFile(t.db, job!.data.fileId, { appSecret: TEST_APP_SECRET, finalAttempt: true, refetch: job!.data.refetch, allowPrivateNetworks: options.allowPrivateNetworks ?? true, resolve: options.resolve });
}

const LEAVE_PAGE = `<!doctype html><html><head><title>Leave policy &amp; holidays</title></head><body>
<nav>Home</nav><main><h1>Annual leave</h1><p>Staff get <strong>25 days</strong> of annual leave each year; unused days carry over until March.</p></main></body></html>`;

describe('web pages in a knowledge base', () => {
  it('fetches a page into a file named by its title with its URL kept, chunked and searchable; failures show the reason', async () => {
    const owner = await t.signUp();
    const baseId = await newBase(owner);
    pages.set('/policies/leave', { type: 'text/html; charset=utf-8', body: LEAVE_PAGE });
    pages.set('/logo.png', { type: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]) });
    pages.set('/big', { type: 'text/plain', body: 'x'.repeat(1024 * 1024 + 10) });
    const guard = guardNonLoopbackConnections();
    try {
      const urls = [`${site.origin}/policies/leave`, `${site.origin}/missing`, `${site.origin}/logo.png`, `${site.origin}/big`, 'http://169.254.169.254/latest/meta-data/'];
      const added = await send('POST', `/api/knowledge/${baseId}/pages`, owner, { urls });
      expect(added.status).toBe(201);
      const { items } = (await added.json()) as { items: FileView[] };
      expect(items.map((file) => [file.sourceUrl, file.status])).toEqual(urls.map((url) => [url, 'processing']));
      expect(items[0]).not.toHaveProperty('data');
      const connectionsBefore = site.connections();
      for (const file of items) await runJob(file.id);
      // Four pages on the loopback site were dialled; the metadata address never was, even with the loopback escape hatch on.
      expect(site.connections() - connectionsBefore).toBe(4);
      expect(guard.attempts).toEqual([]);

      const rows = await files(owner, baseId);
      const byUrl = new Map(rows.map((row) => [row.sourceUrl, row]));
      expect(byUrl.get(urls[0]!)).toMatchObject({ name: 'Leave policy & holidays', mediaType: 'text/markdown', status: 'ready', error: null, chunkCount: 1 });
      expect(byUrl.get(urls[1]!)).toMatchObject({ status: 'failed', error: 'The page answered HTTP 404 Not Found', chunkCount: 0 });
      expect(byUrl.get(urls[2]!)).toMatchObject({ status: 'failed', error: 'The page is not HTML or text (image/png)' });
      expect(byUrl.get(urls[3]!)).toMatchObject({ status: 'failed', error: 'The page is larger than 1 MiB' });
      expect(byUrl.get(urls[4]!)?.status).toBe('failed');
      expect(byUrl.get(urls[4]!)?.error).toMatch(/^Refused: 169\.254\.169\.254, which is in cloud instance metadata/);

      const found = (await (await send('POST', `/api/knowledge/${baseId}/search`, owner, { query: 'how many days of annual leave' })).json()) as { passages: { fileName: string; text: string }[] };
      expect(found.passages).toHaveLength(1);
      expect(found.passages[0]!.fileName).toBe('Leave policy & holidays');
      expect(found.passages[0]!.text).toContain('Staff get **25 days** of annual leave');
      expect(found.passages[0]!.text).toContain(`Source: ${urls[0]}`);
      expect(found.passages[0]!.text).not.toContain('<strong>');
    } finally {
      guard.uninstall();
    }
  });

  it('refuses a host whose DNS points at a private address, without dialling it (stubbed DNS)', async () => {
    const owner = await t.signUp();
    const baseId = await newBase(owner);
    const guard = guardNonLoopbackConnections();
    const looked: string[] = [];
    try {
      const added = (await (await send('POST', `/api/knowledge/${baseId}/pages`, owner, { urls: ['http://intranet.example.test/wiki'] })).json()) as { items: FileView[] };
      const outcome = await runJob(added.items[0]!.id, { allowPrivateNetworks: false, resolve: async (hostname) => (looked.push(hostname), ['10.1.2.3']) });
      expect(outcome).toEqual({ status: 'failed', error: expect.stringMatching(/^Refused: intranet\.example\.test resolves to 10\.1\.2\.3, which is in private/) });
      expect(looked).toEqual(['intranet.example.test']);
      expect(guard.attempts).toEqual([]);
    } finally {
      guard.uninstall();
    }
  });

  it('fetches a page again on "Fetch again", and a failed one on "Process again"', async () => {
    const owner = await t.signUp();
    const baseId = await newBase(owner);
    pages.set('/faq', { type: 'text/html', body: '<title>FAQ</title><p>The office opens at nine.</p>' });
    const { items } = (await (await send('POST', `/api/knowledge/${baseId}/pages`, owner, { urls: [`${site.origin}/faq`, `${site.origin}/later`] })).json()) as { items: FileView[] };
    const [faq, later] = items as [FileView, FileView];
    await runJob(faq.id);
    await runJob(later.id);
    expect((await files(owner, baseId)).map((file) => file.status)).toEqual(['ready', 'failed']);

    pages.set('/faq', { type: 'text/html', body: '<title>FAQ (updated)</title><p>The office opens at eight thirty.</p>' });
    const again = await send('POST', `/api/knowledge/${baseId}/files/${faq.id}/refetch`, owner);
    expect(again.status).toBe(202);
    expect((await files(owner, baseId))[0]).toMatchObject({ status: 'processing' });
    const jobs = await t.queues.knowledgeIngestions.getJobs(['waiting', 'delayed', 'prioritized']);
    const refetchJob = jobs.find((job) => job.data.fileId === faq.id && job.data.refetch === true);
    expect(refetchJob).toBeTruthy();
    await runJob(refetchJob!.id!);
    expect((await files(owner, baseId))[0]).toMatchObject({ name: 'FAQ (updated)', status: 'ready' });
    const found = (await (await send('POST', `/api/knowledge/${baseId}/search`, owner, { query: 'eight thirty' })).json()) as { passages: { text: string }[] };
    expect(found.passages.map((passage) => passage.text).join()).toContain('eight thirty');

    // The page that was missing exists now: "Process again" (re-index) fetches it.
    pages.set('/later', { type: 'text/plain; charset=utf-8', body: 'Parking is free after six.' });
    expect(await (await send('POST', `/api/knowledge/${baseId}/reindex`, owner)).json()).toMatchObject({ queued: 1 });
    const retry = (await t.queues.knowledgeIngestions.getJobs(['waiting', 'delayed', 'prioritized'])).find((job) => job.data.fileId === later.id && job.id !== later.id);
    await runJob(retry!.id!);
    expect((await files(owner, baseId))[1]).toMatchObject({ status: 'ready', error: null, name: '127.0.0.1 – later' });

    // An uploaded file has nothing to fetch.
    const form = new FormData();
    form.append('file', new File(['notes'], 'notes.md'));
    const upload = (await (await t.app.request(`/api/knowledge/${baseId}/files`, { method: 'POST', headers: { cookie: owner.cookie }, body: form })).json()) as FileView;
    expect(upload.sourceUrl).toBeNull();
    expect((await send('POST', `/api/knowledge/${baseId}/files/${upload.id}/refetch`, owner)).status).toBe(400);
    expect((await send('POST', `/api/knowledge/${baseId}/files/file_nope/refetch`, owner)).status).toBe(404);
  });

  it("validates the addresses (400 with the issues) and answers 404 for another user's base", async () => {
    const owner = await t.signUp();
    const other = await t.signUp();
    const baseId = await newBase(owner);
    for (const body of [{}, { urls: [] }, { urls: ['ftp://example.com/file'] }, { urls: ['not a url'] }, { urls: ['javascript:alert(1)'] }, { urls: Array.from({ length: 11 }, (_, index) => `https://example.com/${index}`) }]) {
      const response = await send('POST', `/api/knowledge/${baseId}/pages`, owner, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).error.issues.length).toBeGreaterThan(0);
    }
    const refused = await send('POST', `/api/knowledge/${baseId}/pages`, owner, { urls: ['ftp://example.com/file'] });
    expect((await refused.json()).error.issues[0].path).toEqual(['urls', 0]);
    const theirs = await send('POST', `/api/knowledge/${baseId}/pages`, other, { urls: [`${site.origin}/faq`] });
    expect(theirs.status).toBe(404);
    const { items } = (await (await send('POST', `/api/knowledge/${baseId}/pages`, owner, { urls: [`${site.origin}/faq`] })).json()) as { items: FileView[] };
    expect((await send('POST', `/api/knowledge/${baseId}/files/${items[0]!.id}/refetch`, other)).status).toBe(404);
    expect(await files(owner, baseId)).toHaveLength(1);
  });
});
