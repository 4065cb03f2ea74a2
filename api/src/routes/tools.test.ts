import { createServer, type Server } from 'node:http';
import { agentToolLogs, agentTools, runs } from '@agentq/shared/db';
import { decryptSecret } from '@agentq/shared/services';
import { FAKE_SEARCH_KEY, startFakeSearchProvider } from '@agentq/shared/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_APP_SECRET, type startWorkerProcess } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let worker: Awaited<ReturnType<typeof startWorkerProcess>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let page: Server;
let pageUrl = '';
const requests: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.signUp('admin');
  worker = await t.startWorker();
  page = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url === '/big') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('y'.repeat(30_000));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<html><body><h1>Loopback page</h1><p>Hello <b>agentq</b></p></body></html>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  const address = page.address();
  pageUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await worker?.stop();
  page?.close();
  await t.close();
});

const post = (path: string, body: unknown, headers = admin.headers) => t.app.request(path, { method: 'POST', headers, body: JSON.stringify(body) });
const put = (path: string, body: unknown) => t.app.request(path, { method: 'PUT', headers: admin.headers, body: JSON.stringify(body) });
let slugCounter = 0;
const slug = (base: string) => `${base}_${Date.now().toString(36)}_${slugCounter++}`;

describe('tool types', () => {
  it('lists every registered type with JSON Schemas and defaults', async () => {
    const response = await t.app.request('/api/tool-types', { headers: admin.headers });
    expect(response.status).toBe(200);
    const { items } = await response.json();
    const types = items.map((item: { type: string }) => item.type);
    expect(types).toEqual(expect.arrayContaining(['fetch', 'calculator', 'datetime']));
    const fetchType = items.find((item: { type: string }) => item.type === 'fetch');
    expect(fetchType.configSchema.type).toBe('object');
    expect(fetchType.configSchema.properties.timeout).toBeTruthy();
    expect(fetchType.inputSchema.properties.url).toBeTruthy();
    expect(fetchType.defaults).toMatchObject({ defaultMethod: 'GET', timeout: 10000, parseMode: 'markdown' });
  });

  it('shows the effect of each type\'s calls', async () => {
    const { items } = await (await t.app.request('/api/tool-types', { headers: admin.headers })).json();
    const effects = Object.fromEntries(items.map((item: { type: string; effect: { possible: string[] } }) => [item.type, item.effect.possible]));
    expect(effects).toMatchObject({ calculator: ['none'], datetime: ['none'], fetch: ['idempotent', 'non-idempotent'], document: ['none', 'non-idempotent'] });
    expect(items.find((item: { type: string }) => item.type === 'fetch').effect.summary).toMatch(/POST/);
  });
});

describe('retryInterrupted', () => {
  it('defaults to never, is admin-settable and rejects other values with 400', async () => {
    const created = await (await post('/api/agent-tools', { name: 'Pay', slug: slug('pay'), type: 'fetch' })).json();
    expect(created.retryInterrupted).toBe('never');
    const updated = await put(`/api/agent-tools/${created.id}`, { retryInterrupted: 'with-idempotency-key' });
    expect(updated.status).toBe(200);
    expect((await updated.json()).retryInterrupted).toBe('with-idempotency-key');
    expect((await put(`/api/agent-tools/${created.id}`, { retryInterrupted: 'always' })).status).toBe(400);
  });
});

describe('agent tools CRUD', () => {
  it('creates with defaults filled, reads, lists by sort order, updates and deletes', async () => {
    const created = await post('/api/agent-tools', { name: 'Calc', slug: slug('calc'), type: 'calculator', sortOrder: 5 });
    expect(created.status).toBe(201);
    const tool = await created.json();
    expect(tool).toMatchObject({ type: 'calculator', enabled: true, needsApproval: false, sortOrder: 5 });
    expect(tool.config).toEqual({ precision: 10 });
    expect(tool.inputSchema.properties.expression).toBeTruthy();

    const first = await (await post('/api/agent-tools', { name: 'First', slug: slug('first'), type: 'datetime', sortOrder: -5 })).json();
    const list = (await (await t.app.request('/api/agent-tools', { headers: admin.headers })).json()).items as { id: string }[];
    expect(list.findIndex((item) => item.id === first.id)).toBeLessThan(list.findIndex((item) => item.id === tool.id));

    const updated = await put(`/api/agent-tools/${tool.id}`, { config: { precision: 4 }, needsApproval: true, description: 'Adds numbers' });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ config: { precision: 4 }, needsApproval: true, description: 'Adds numbers' });
    // A partial update leaves every field it does not name as it was.
    const partial = await (await put(`/api/agent-tools/${tool.id}`, { config: { precision: 6 } })).json();
    expect(partial).toMatchObject({ config: { precision: 6 }, needsApproval: true, description: 'Adds numbers', sortOrder: 5, enabled: true });
    expect((await t.app.request(`/api/agent-tools/${tool.id}`, { headers: admin.headers })).status).toBe(200);
    expect((await t.app.request(`/api/agent-tools/${tool.id}`, { method: 'DELETE', headers: admin.headers })).status).toBe(204);
    expect((await t.app.request(`/api/agent-tools/${tool.id}`, { headers: admin.headers })).status).toBe(404);
  });

  it('answers 409 for a taken slug, on create and on update', async () => {
    const taken = slug('taken');
    expect((await post('/api/agent-tools', { name: 'A', slug: taken, type: 'calculator' })).status).toBe(201);
    const duplicate = await post('/api/agent-tools', { name: 'B', slug: taken, type: 'calculator' });
    expect(duplicate.status).toBe(409);
    expect((await duplicate.json()).error.message).toContain(taken);
    const other = await (await post('/api/agent-tools', { name: 'C', slug: slug('other'), type: 'calculator' })).json();
    expect((await put(`/api/agent-tools/${other.id}`, { slug: taken })).status).toBe(409);
  });

  it('answers 400 with issues for a bad config, an unknown type and an invalid slug, and stores nothing', async () => {
    const before = (await (await t.app.request('/api/agent-tools', { headers: admin.headers })).json()).items.length;
    const badConfig = await post('/api/agent-tools', { name: 'F', slug: slug('f'), type: 'fetch', config: { timeout: 999_999, parseMode: 'xml' } });
    expect(badConfig.status).toBe(400);
    const paths = (await badConfig.json()).error.issues.map((issue: { path: string[] }) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['config.timeout', 'config.parseMode']));

    const unknownType = await post('/api/agent-tools', { name: 'X', slug: slug('x'), type: 'ftp' });
    expect(unknownType.status).toBe(400);
    expect(JSON.stringify(await unknownType.json())).toMatch(/fetch/);

    expect((await post('/api/agent-tools', { name: 'S', slug: 'has spaces!', type: 'calculator' })).status).toBe(400);
    const tool = await (await post('/api/agent-tools', { name: 'U', slug: slug('u'), type: 'fetch' })).json();
    const badUpdate = await put(`/api/agent-tools/${tool.id}`, { config: { maxResponseSize: 10 * 1024 * 1024 } });
    expect(badUpdate.status).toBe(400);
    expect((await badUpdate.json()).error.issues[0].path).toEqual(['config', 'maxResponseSize']);
    const after = (await (await t.app.request('/api/agent-tools', { headers: admin.headers })).json()).items.length;
    expect(after).toBe(before + 1);
  });

  it('is admin-only: 403 for a user, 401 anonymous', async () => {
    const user = await t.signUp('user');
    for (const path of ['/api/agent-tools', '/api/tool-types', '/api/tool-logs']) {
      expect((await t.app.request(path, { headers: user.headers })).status).toBe(403);
      expect((await t.app.request(path)).status).toBe(401);
    }
    expect((await post('/api/agent-tools', { name: 'N', slug: slug('n'), type: 'calculator' }, user.headers)).status).toBe(403);
  });
});

describe('execution through the queue', () => {
  it('executes a calculator synchronously through a real worker and logs it', async () => {
    const tool = await (await post('/api/agent-tools', { name: 'Calc', slug: slug('calc'), type: 'calculator' })).json();
    const response = await post(`/api/agent-tools/${tool.id}/execute`, { input: { expression: '2 * (3 + 4)' } });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.result.success).toBe(true);
    expect(JSON.stringify(body.result.data)).toContain('14');
    expect(body.result.metadata.durationMs).toBeGreaterThanOrEqual(0);

    const run = await (await t.app.request(`/api/runs/${body.runId}`, { headers: admin.headers })).json();
    expect(run).toMatchObject({ kind: 'tool', status: 'succeeded' });
    const logs = await (await t.app.request(`/api/tool-logs?toolId=${tool.id}`, { headers: admin.headers })).json();
    expect(logs.items).toHaveLength(1);
    expect(logs.items[0]).toMatchObject({ status: 'success', runId: body.runId, userId: admin.user.id, input: { expression: '2 * (3 + 4)' } });
    // The log row and the run's end are one statement: both carry that transaction's timestamp.
    const [row] = await t.db.select().from(runs).where(eq(runs.id, body.runId));
    const [log] = await t.db.select().from(agentToolLogs).where(eq(agentToolLogs.runId, body.runId));
    expect(row!.result).toEqual(body.result);
    expect(row!.finishedAt!.getTime()).toBe(log!.createdAt.getTime());
    // Not claimed (a calculation has no effect): it starts and ends in that statement.
    expect(row!.startedAt!.getTime()).toBe(row!.finishedAt!.getTime());
  });

  it('stores a synchronous calculation only when it ends: its job carries the run until the worker writes it', async () => {
    const tool = await (await post('/api/agent-tools', { name: 'Calc', slug: slug('calc'), type: 'calculator' })).json();
    const queued = async () => (await t.queues.toolExecutions.getJobs(['waiting'])).filter((job) => job.data.toolId === tool.id);
    await t.queues.toolExecutions.pause();
    let pending: Response | Promise<Response> | undefined;
    try {
      pending = post(`/api/agent-tools/${tool.id}/execute`, { input: { expression: '6 * 7' } });
      await expect.poll(async () => (await queued()).length, { timeout: 5_000 }).toBe(1);
      const [job] = await queued();
      expect(job!.data.draft).toMatchObject({ userId: admin.user.id, options: { input: { expression: '6 * 7' } } });
      expect(await t.db.select().from(runs).where(eq(runs.id, job!.data.runId))).toHaveLength(0);
    } finally {
      await t.queues.toolExecutions.resume();
    }
    const response = await pending!;
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.result).toMatchObject({ success: true, data: { result: '42' } });
    const run = await (await t.app.request(`/api/runs/${body.runId}`, { headers: admin.headers })).json();
    expect(run).toMatchObject({ kind: 'tool', status: 'succeeded', userId: admin.user.id });
    // Created when it was asked for, not when it was written.
    expect(new Date(run.createdAt).getTime()).toBeLessThan(new Date(run.finishedAt).getTime());
  });

  it('fails, and stores, a synchronous calculation whose tool was disabled while it waited', async () => {
    const tool = await (await post('/api/agent-tools', { name: 'Calc', slug: slug('calc'), type: 'calculator' })).json();
    await t.queues.toolExecutions.pause();
    let pending: Response | Promise<Response> | undefined;
    try {
      pending = post(`/api/agent-tools/${tool.id}/execute`, { input: { expression: '6 * 7' } });
      await expect.poll(async () => (await t.queues.toolExecutions.getJobs(['waiting'])).some((job) => job.data.toolId === tool.id), { timeout: 5_000 }).toBe(true);
      expect((await put(`/api/agent-tools/${tool.id}`, { enabled: false })).status).toBe(200);
    } finally {
      await t.queues.toolExecutions.resume();
    }
    const body = await (await pending!).json();
    expect(body.result).toMatchObject({ success: false, error: expect.stringMatching(/disabled/) });
    const run = await (await t.app.request(`/api/runs/${body.runId}`, { headers: admin.headers })).json();
    expect(run).toMatchObject({ status: 'failed', error: expect.stringMatching(/disabled/) });
  });

  it('executes datetime and reports an invalid input as a failed result', async () => {
    const tool = await (await post('/api/agent-tools', { name: 'Clock', slug: slug('clock'), type: 'datetime' })).json();
    const ok = await (await post(`/api/agent-tools/${tool.id}/execute`, { input: { action: 'now', timezone: 'Asia/Tokyo' } })).json();
    expect(ok.result.success).toBe(true);
    expect(JSON.stringify(ok.result.data)).toContain('Asia/Tokyo');
    const bad = await (await post(`/api/agent-tools/${tool.id}/execute`, { input: { action: 'now', timezone: 'Mars/Olympus' } })).json();
    expect(bad.result.success).toBe(false);
    expect(bad.result.error).toMatch(/time ?zone/i);
    const failed = await (await t.app.request(`/api/runs/${bad.runId}`, { headers: admin.headers })).json();
    expect(failed).toMatchObject({ status: 'failed', error: bad.result.error });
    const logs = await (await t.app.request(`/api/tool-logs?toolId=${tool.id}&status=error`, { headers: admin.headers })).json();
    expect(logs.items).toHaveLength(1);
  });

  it('runs a JavaScript program in the code sandbox, and returns its error as a failed result', async () => {
    const tool = await (await post('/api/agent-tools', { name: 'Code', slug: slug('code'), type: 'code' })).json();
    const ok = await (await post(`/api/agent-tools/${tool.id}/execute`, { input: { code: '1 + 1' } })).json();
    expect(ok.result).toMatchObject({ success: true, data: { result: 2 } });
    const run = await (await t.app.request(`/api/runs/${ok.runId}`, { headers: admin.headers })).json();
    expect(run).toMatchObject({ kind: 'tool', status: 'succeeded' });
    const withInput = await (await post(`/api/agent-tools/${tool.id}/execute`, { input: { code: 'input.map((n) => n * n)', input: [1, 2, 3] } })).json();
    expect(withInput.result.data).toEqual({ result: [1, 4, 9] });
    const thrown = await (await post(`/api/agent-tools/${tool.id}/execute`, { input: { code: 'undefinedName + 1' } })).json();
    expect(thrown.result).toMatchObject({ success: false, error: expect.stringMatching(/^The program threw ReferenceError: 'undefinedName' is not defined/) });
  });

  it('fetches a loopback page as markdown with status and size, and truncates long outputs in the log', async () => {
    const tool = await (await post('/api/agent-tools', { name: 'Web', slug: slug('web'), type: 'fetch' })).json();
    const { result } = await (await post(`/api/agent-tools/${tool.id}/execute`, { input: { url: `${pageUrl}/` } })).json();
    expect(result.success).toBe(true);
    expect(result.data).toContain('Loopback page');
    expect(result.metadata.statusCode).toBe(200);
    expect(result.metadata.responseSize).toBeGreaterThan(0);

    const raw = await (await post('/api/agent-tools', { name: 'Raw', slug: slug('raw'), type: 'fetch', config: { parseMode: 'raw' } })).json();
    const big = await (await post(`/api/agent-tools/${raw.id}/execute`, { input: { url: `${pageUrl}/big` } })).json();
    expect(big.result.success).toBe(true);
    const [log] = await t.db.select().from(agentToolLogs).where(eq(agentToolLogs.runId, big.runId));
    expect(log!.output!.length).toBeLessThan(10_100);
    expect(log!.output).toContain('truncated');
  });

  it('answers 202 with a run id for ?async=1, and the run finishes on its own', async () => {
    const tool = await (await post('/api/agent-tools', { name: 'Calc', slug: slug('calc'), type: 'calculator' })).json();
    const response = await post(`/api/agent-tools/${tool.id}/execute?async=1`, { input: { expression: '6 * 7' } });
    expect(response.status).toBe(202);
    const { runId, statusUrl } = await response.json();
    expect(statusUrl).toBe(`/api/runs/${runId}`);
    await expect
      .poll(async () => (await (await t.app.request(statusUrl, { headers: admin.headers })).json()).status, { timeout: 10_000 })
      .toBe('succeeded');
    const run = await (await t.app.request(statusUrl, { headers: admin.headers })).json();
    expect(JSON.stringify(run.result)).toContain('42');
  });

  it('never runs an execution cancelled while it was queued', async () => {
    const tool = await (await post('/api/agent-tools', { name: 'Poster', slug: slug('poster'), type: 'fetch', config: { defaultMethod: 'POST', parseMode: 'raw' } })).json();
    const path = `/cancelled-${Date.now()}`;
    await t.queues.toolExecutions.pause();
    let runId = '';
    try {
      const response = await post(`/api/agent-tools/${tool.id}/execute?async=1`, { input: { url: `${pageUrl}${path}` } });
      runId = (await response.json()).runId;
      expect((await post(`/api/runs/${runId}/cancel`, {})).status).toBe(202);
    } finally {
      await t.queues.toolExecutions.resume();
    }
    // The job runs once the queue resumes: it must find the run cancelled and leave the tool alone.
    await expect.poll(async () => (await t.queues.toolExecutions.getJobState(runId)), { timeout: 10_000 }).toBe('completed');
    expect(requests.filter((url) => url === path)).toHaveLength(0);
    const run = await (await t.app.request(`/api/runs/${runId}`, { headers: admin.headers })).json();
    expect(run).toMatchObject({ status: 'cancelled' });
    const logs = await (await t.app.request(`/api/tool-logs?runId=${runId}`, { headers: admin.headers })).json();
    expect(logs.items).toHaveLength(0);
  });

  it('never runs a calculation cancelled while it was queued, though such a call is not claimed', async () => {
    const tool = await (await post('/api/agent-tools', { name: 'Calc', slug: slug('calc'), type: 'calculator' })).json();
    await t.queues.toolExecutions.pause();
    let runId = '';
    try {
      runId = (await (await post(`/api/agent-tools/${tool.id}/execute?async=1`, { input: { expression: '6 * 7' } })).json()).runId;
      expect((await post(`/api/runs/${runId}/cancel`, {})).status).toBe(202);
    } finally {
      await t.queues.toolExecutions.resume();
    }
    await expect.poll(async () => (await t.queues.toolExecutions.getJobState(runId)), { timeout: 10_000 }).toBe('completed');
    const run = await (await t.app.request(`/api/runs/${runId}`, { headers: admin.headers })).json();
    expect(run).toMatchObject({ status: 'cancelled', result: null });
    const logs = await (await t.app.request(`/api/tool-logs?runId=${runId}`, { headers: admin.headers })).json();
    expect(logs.items).toHaveLength(0);
  });

  it('refuses a disabled tool with 409 and creates no run', async () => {
    const tool = await (await post('/api/agent-tools', { name: 'Off', slug: slug('off'), type: 'calculator', enabled: false })).json();
    const response = await post(`/api/agent-tools/${tool.id}/execute`, { input: { expression: '1+1' } });
    expect(response.status).toBe(409);
    expect((await response.json()).error.message).toMatch(/disabled/);
    const logs = await (await t.app.request(`/api/tool-logs?toolId=${tool.id}`, { headers: admin.headers })).json();
    expect(logs.total).toBe(0);
  });

  it("answers 404 for another user's run and paginates logs with a cursor", async () => {
    const tool = await (await post('/api/agent-tools', { name: 'Calc', slug: slug('calc'), type: 'calculator' })).json();
    const runs: string[] = [];
    for (const expression of ['1+1', '2+2', '3+3']) runs.push((await (await post(`/api/agent-tools/${tool.id}/execute`, { input: { expression } })).json()).runId);
    const page1 = await (await t.app.request(`/api/tool-logs?toolId=${tool.id}&limit=2`, { headers: admin.headers })).json();
    expect(page1.items).toHaveLength(2);
    expect(page1.total).toBe(3);
    const page2 = await (await t.app.request(`/api/tool-logs?toolId=${tool.id}&limit=2&cursor=${page1.nextCursor}`, { headers: admin.headers })).json();
    expect(page2.items).toHaveLength(1);
    expect(page2.nextCursor).toBeNull();
    expect([...page1.items, ...page2.items].map((item: { runId: string }) => item.runId).sort()).toEqual([...runs].sort());

    const stranger = await t.signUp('user');
    expect((await t.app.request(`/api/runs/${runs[0]}`, { headers: stranger.headers })).status).toBe(404);
    expect((await t.app.request('/api/tool-logs?from=not-a-date', { headers: admin.headers })).status).toBe(400);
  });
});

describe('web-search tools', () => {
  it('keeps the API key write-only: required for Brave (400 at secrets.apiKey), encrypted, never in any answer or log, and used by the worker', async () => {
    const provider = await startFakeSearchProvider();
    try {
      const missingKey = await post('/api/agent-tools', { name: 'Search', slug: slug('search'), type: 'web-search', config: { provider: 'brave' } });
      expect(missingKey.status).toBe(400);
      expect((await missingKey.json()).error.issues.map((issue: { path: string[] }) => issue.path.join('.'))).toEqual(['secrets.apiKey']);
      const badConfig = await post('/api/agent-tools', { name: 'Search', slug: slug('search'), type: 'web-search', config: { provider: 'bing' } });
      expect(badConfig.status).toBe(400);
      expect((await badConfig.json()).error.issues.map((issue: { path: string[] }) => issue.path.join('.'))).toContain('config.provider');
      const noBaseUrl = await post('/api/agent-tools', { name: 'Search', slug: slug('search'), type: 'web-search', config: { provider: 'searxng' } });
      expect((await noBaseUrl.json()).error.issues.map((issue: { path: string[] }) => issue.path.join('.'))).toEqual(['config.baseUrl']);

      const created = await post('/api/agent-tools', {
        name: 'Search',
        slug: slug('search'),
        type: 'web-search',
        config: { provider: 'brave', baseUrl: provider.baseUrls.brave },
        secrets: { apiKey: FAKE_SEARCH_KEY },
      });
      expect(created.status).toBe(201);
      const createdText = await created.text();
      expect(createdText).not.toContain(FAKE_SEARCH_KEY);
      const tool = JSON.parse(createdText);
      expect(tool).toMatchObject({ type: 'web-search', config: { provider: 'brave', maxResults: 5 }, secretsSet: ['apiKey'] });
      expect(tool.secretsEncrypted).toBeUndefined();
      const [row] = await t.db.select().from(agentTools).where(eq(agentTools.id, tool.id));
      expect(row!.secretsEncrypted).not.toContain(FAKE_SEARCH_KEY);
      expect(JSON.parse(decryptSecret(row!.secretsEncrypted!, TEST_APP_SECRET))).toEqual({ apiKey: FAKE_SEARCH_KEY });

      const executed = await post(`/api/agent-tools/${tool.id}/execute`, { input: { query: 'agentq', count: 2 } });
      expect(executed.status).toBe(200);
      const { result, runId } = await executed.json();
      expect(result).toMatchObject({ success: true, metadata: { provider: 'brave', resultCount: 2 } });
      expect(result.data).toContain('[agentq 2.0 released](https://example.com/news/agentq-2)');
      expect(provider.requests.at(-1)!.headers['x-subscription-token']).toBe(FAKE_SEARCH_KEY);

      // Switching to a provider that needs no key is fine; back to Tavily with the key cleared is not.
      expect((await put(`/api/agent-tools/${tool.id}`, { config: { provider: 'searxng', baseUrl: provider.baseUrls.searxng } })).status).toBe(200);
      const cleared = await put(`/api/agent-tools/${tool.id}`, { config: { provider: 'tavily' }, secrets: {} });
      expect(cleared.status).toBe(400);
      expect((await cleared.json()).error.issues[0].path).toEqual(['secrets', 'apiKey']);

      // Nothing an admin can read carries the key: the tool, the list, the run and its log.
      const readable = await Promise.all(
        [`/api/agent-tools/${tool.id}`, '/api/agent-tools', `/api/runs/${runId}`, `/api/tool-logs?toolId=${tool.id}`].map(async (path) => {
          const response = await t.app.request(path, { headers: admin.headers });
          expect(response.status, path).toBe(200);
          return response.text();
        }),
      );
      for (const text of readable) expect(text).not.toContain(FAKE_SEARCH_KEY);
      expect(JSON.parse(readable[3]!).items[0]).toMatchObject({ status: 'success' });
    } finally {
      await provider.close();
    }
  });
});
