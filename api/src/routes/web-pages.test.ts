import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModel } from '@agentq/shared/services';
import { guardNonLoopbackConnections, startLoopbackServer, type LoopbackServer } from '../../../shared/src/tools/fetch/test-server';
import { createTestApp, TEST_APP_SECRET } from '../testing';

// The loopback escape hatch on, as the fetch tool's tests run; a second app keeps the default (off).
let t: Awaited<ReturnType<typeof createTestApp>>;
let strict: Awaited<ReturnType<typeof createTestApp>>;
let site: LoopbackServer;
let modelId: string;

beforeAll(async () => {
  t = await createTestApp({ allowPrivateNetworks: true });
  strict = await createTestApp();
  modelId = (await createModel(t.db, { name: 'Pages test model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'scripted', apiKey: null }, TEST_APP_SECRET)).id;
  site = await startLoopbackServer((request, response) => {
    if (request.url === '/trip') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void response.end('<html><head><title>Lisbon in three days</title><script>alert(1)</script></head><body><h1>Day one</h1><p>Take tram <em>28</em> to Alfama.</p></body></html>');
    }
    if (request.url === '/old') return void response.writeHead(301, { location: '/trip' }).end();
    if (request.url === '/map.pdf') return void response.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4');
    response.writeHead(404, { 'content-type': 'text/plain' }).end('no');
  });
});
afterAll(async () => {
  await site.close();
  await strict.close();
  await t.close();
});

type App = typeof t;
const read = (app: App, account: Awaited<ReturnType<App['signUp']>>, body: unknown) =>
  app.app.request('/api/web-pages/read', { method: 'POST', headers: account.headers, body: JSON.stringify(body) });

describe('reading a web page to attach in the chat', () => {
  it('answers the title and the Markdown, which attaches to a message like an uploaded text file', async () => {
    const owner = await t.signUp();
    const response = await read(t, owner, { url: `${site.origin}/old` });
    expect(response.status).toBe(200);
    const page = (await response.json()) as { title: string; url: string; finalUrl: string; fileName: string; content: string };
    expect(page).toMatchObject({ title: 'Lisbon in three days', url: `${site.origin}/old`, finalUrl: `${site.origin}/trip`, fileName: 'Lisbon in three days.md' });
    expect(page.content).toContain(`Source: ${site.origin}/trip`);
    expect(page.content).toContain('Take tram _28_ to Alfama.');
    expect(page.content).not.toContain('alert(1)');

    const session = (await (await t.app.request('/api/sessions', { method: 'POST', headers: owner.headers, body: '{}' })).json()) as { id: string };
    const form = new FormData();
    form.append('file', new File([page.content], page.fileName, { type: 'text/markdown' }));
    const uploaded = await t.app.request(`/api/sessions/${session.id}/files`, { method: 'POST', headers: { cookie: owner.cookie }, body: form });
    expect(uploaded.status).toBe(201);
    const file = (await uploaded.json()) as { id: string; name: string; mediaType: string };
    expect(file).toMatchObject({ name: 'Lisbon in three days.md', mediaType: 'text/markdown' });
    const sent = await t.app.request(`/api/sessions/${session.id}/runs`, { method: 'POST', headers: owner.headers, body: JSON.stringify({ content: 'Summarise it', attachments: [file.id], modelId }) });
    expect(sent.status).toBe(202);
    const detail = (await (await t.app.request(`/api/sessions/${session.id}`, { headers: owner.headers })).json()) as { messages: { parts: unknown[] }[] };
    expect(detail.messages[0]!.parts[0]).toEqual({ type: 'file', mediaType: 'text/markdown', filename: 'Lisbon in three days.md', url: `agentq-file:${file.id}` });
  });

  it('says why a page cannot be attached (422), never dialling a refused address; 400 for a bad address, 401 signed out', async () => {
    const owner = await t.signUp();
    const guard = guardNonLoopbackConnections();
    try {
      const reasons: Record<string, RegExp> = {
        [`${site.origin}/gone`]: /^The page answered HTTP 404 Not Found$/,
        [`${site.origin}/map.pdf`]: /^The page is not HTML or text \(application\/pdf\)$/,
        'http://169.254.169.254/latest/meta-data/iam': /^Refused: 169\.254\.169\.254, which is in cloud instance metadata/,
        'http://[fd00:ec2::254]/latest/api/token': /^Refused: fd00:ec2::254, which is in AWS instance metadata over IPv6/,
      };
      for (const [url, reason] of Object.entries(reasons)) {
        const response = await read(t, owner, { url });
        expect(response.status, url).toBe(422);
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('page_unavailable');
        expect(body.error.message, url).toMatch(reason);
      }
      expect(guard.attempts).toEqual([]);
    } finally {
      guard.uninstall();
    }

    // Without the escape hatch the loopback site itself is refused, before any connection.
    const before = site.connections();
    const strictUser = await strict.signUp();
    const loopback = await read(strict, strictUser, { url: `${site.origin}/trip` });
    expect(loopback.status).toBe(422);
    expect(((await loopback.json()) as { error: { message: string } }).error.message).toMatch(/^Refused: 127\.0\.0\.1, which is in loopback/);
    expect(site.connections()).toBe(before);

    for (const body of [{}, { url: '' }, { url: 'ftp://example.com/a' }, { url: 'example.com' }, { url: `https://example.com/${'a'.repeat(2000)}` }]) {
      expect((await read(t, owner, body)).status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
    expect((await t.app.request('/api/web-pages/read', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `${site.origin}/trip` }) })).status).toBe(401);
  });
});

describe('how many pages a user may have fetched', () => {
  it('counts every page, attached or added to a knowledge base, against one budget a minute per user: 429 with Retry-After past it, and nothing added', async () => {
    const limited = await createTestApp({ allowPrivateNetworks: true, config: { webPageRateLimit: { max: 3, windowSeconds: 60 } } });
    try {
      const [ada, bob] = [await limited.signUp(), await limited.signUp()];
      expect((await read(limited, ada, { url: `${site.origin}/trip` })).status).toBe(200);
      const base = (await (await limited.app.request('/api/knowledge', { method: 'POST', headers: ada.headers, body: JSON.stringify({ name: 'Trips' }) })).json()) as { id: string };
      const addPages = (urls: string[]) => limited.app.request(`/api/knowledge/${base.id}/pages`, { method: 'POST', headers: ada.headers, body: JSON.stringify({ urls }) });
      expect((await addPages([`${site.origin}/trip`, `${site.origin}/old`])).status).toBe(201);

      const refused = await read(limited, ada, { url: `${site.origin}/trip` });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
      const tooMany = await addPages([`${site.origin}/trip`]);
      expect(tooMany.status).toBe(429);
      const files = ((await (await limited.app.request(`/api/knowledge/${base.id}`, { headers: ada.headers })).json()) as { files: unknown[] }).files;
      expect(files).toHaveLength(2);

      // Another user's budget is their own.
      expect((await read(limited, bob, { url: `${site.origin}/trip` })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
