import { activeBannersFor } from '@agentq/shared/services';
import { auditEvents } from '@agentq/shared/db';
import { desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

/** Banners are shared by every user, so this file has a database of its own. */
let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let ada: Awaited<ReturnType<typeof t.signUp>>;
let grace: Awaited<ReturnType<typeof t.signUp>>;
const statements: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ privateDatabase: true, configCache: true, onStatement: (statement) => statements.push(statement) });
  admin = await t.signUp('admin');
  ada = await t.signUp('user');
  grace = await t.signUp('user');
});

afterAll(async () => {
  await t.close();
});

beforeEach(async () => {
  // Each test starts with no banners (through the API, so the cached copy is dropped too).
  const { items } = await (await send('GET', '/api/admin/banners', undefined, admin.headers)).json();
  for (const banner of items) expect((await send('DELETE', `/api/admin/banners/${banner.id}`, undefined, admin.headers)).status).toBe(204);
});

const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
  t.app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
const post = async (body: Record<string, unknown>) => {
  const response = await send('POST', '/api/admin/banners', body, admin.headers);
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json() as Promise<{ id: string; text: string }>;
};
const shown = async (user: { headers: Record<string, string> }) => {
  const response = await send('GET', '/api/banners', undefined, user.headers);
  expect(response.status).toBe(200);
  return ((await response.json()).items as { id: string; text: string; kind: string; dismissible: boolean }[]).map((banner) => banner.text);
};
const dismiss = (user: { headers: Record<string, string> }, id: string) => send('POST', `/api/banners/${id}/dismiss`, undefined, user.headers);
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

describe('banners API', () => {
  it('is for signed-in users (401), and its admin side for admins (403 for a user), on every route', async () => {
    const banner = await post({ text: 'Maintenance tonight' });
    expect((await t.app.request('/api/banners')).status).toBe(401);
    expect((await t.app.request(`/api/banners/${banner.id}/dismiss`, { method: 'POST' })).status).toBe(401);
    expect((await t.app.request('/api/admin/banners')).status).toBe(401);
    for (const [method, path, body] of [
      ['GET', '/api/admin/banners', undefined],
      ['POST', '/api/admin/banners', { text: 'Mine' }],
      ['PATCH', `/api/admin/banners/${banner.id}`, { text: 'Mine' }],
      ['DELETE', `/api/admin/banners/${banner.id}`, undefined],
    ] as const) {
      expect((await send(method, path, body, ada.headers)).status, `${method} ${path}`).toBe(403);
    }
    expect(await shown(ada)).toEqual(['Maintenance tonight']);
  });

  it('validates with 400 and the issues, answers 404 for an unknown banner, and audits each change', async () => {
    const issuesOf = async (response: Response) => {
      expect(response.status).toBe(400);
      return ((await response.json()).error.issues as { path: string[] }[]).map((issue) => issue.path.join('.'));
    };
    expect(await issuesOf(await send('POST', '/api/admin/banners', {}, admin.headers))).toEqual(['text']);
    expect(await issuesOf(await send('POST', '/api/admin/banners', { text: '   ' }, admin.headers))).toEqual(['text']);
    expect(await issuesOf(await send('POST', '/api/admin/banners', { text: 'x'.repeat(501) }, admin.headers))).toEqual(['text']);
    expect(await issuesOf(await send('POST', '/api/admin/banners', { text: 'Hi', kind: 'danger', dismissible: 'yes' }, admin.headers))).toEqual(['kind', 'dismissible']);
    expect(await issuesOf(await send('POST', '/api/admin/banners', { text: 'Hi', startsAt: 'tomorrow' }, admin.headers))).toEqual(['startsAt']);
    expect(await issuesOf(await send('POST', '/api/admin/banners', { text: 'Hi', startsAt: inMinutes(60), endsAt: inMinutes(30) }, admin.headers))).toEqual(['endsAt']);

    const created = await send('POST', '/api/admin/banners', { text: 'x'.repeat(500), kind: 'warning', dismissible: false, startsAt: inMinutes(-5), endsAt: inMinutes(60) }, admin.headers);
    expect(created.status).toBe(201);
    const banner = await created.json();
    expect(banner).toMatchObject({ kind: 'warning', dismissible: false, enabled: true });
    expect(banner).not.toHaveProperty('revision');

    expect(await issuesOf(await send('PATCH', `/api/admin/banners/${banner.id}`, {}, admin.headers))).toEqual(['']);
    // The stored start counts: an end before it is refused although the request names only the end.
    expect(await issuesOf(await send('PATCH', `/api/admin/banners/${banner.id}`, { endsAt: inMinutes(-10) }, admin.headers))).toEqual(['endsAt']);
    expect((await send('PATCH', '/api/admin/banners/bnr_missing', { text: 'Nobody' }, admin.headers)).status).toBe(404);
    expect((await send('DELETE', '/api/admin/banners/bnr_missing', undefined, admin.headers)).status).toBe(404);
    expect((await dismiss(ada, 'bnr_missing')).status).toBe(404);

    const patched = await send('PATCH', `/api/admin/banners/${banner.id}`, { text: 'Read **this**', kind: 'error', endsAt: null }, admin.headers);
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ text: 'Read **this**', kind: 'error', endsAt: null, dismissible: false });
    expect((await (await send('GET', '/api/admin/banners', undefined, admin.headers)).json()).items).toEqual([expect.objectContaining({ id: banner.id, text: 'Read **this**' })]);
    expect((await send('DELETE', `/api/admin/banners/${banner.id}`, undefined, admin.headers)).status).toBe(204);

    const audited = await t.db.select().from(auditEvents).where(eq(auditEvents.targetId, banner.id)).orderBy(desc(auditEvents.id));
    expect(audited.map((event) => [event.action, event.actorUserId])).toEqual([
      ['banner.delete', admin.user.id],
      ['banner.update', admin.user.id],
      ['banner.create', admin.user.id],
    ]);
    expect(audited[1]!.details).toMatchObject({ fields: ['kind', 'text', 'endsAt'] });
    const filtered = await (await send('GET', '/api/admin/audit?action=banner', undefined, admin.headers)).json();
    expect(filtered.items.map((event: { action: string }) => event.action)).toContain('banner.update');
  });

  it('shows a banner only while enabled and inside its window (start inclusive, end exclusive)', async () => {
    await post({ text: 'Now' });
    await post({ text: 'Started', startsAt: inMinutes(-60), endsAt: inMinutes(60) });
    await post({ text: 'Later', startsAt: inMinutes(60) });
    await post({ text: 'Over', endsAt: inMinutes(-1) });
    const off = await post({ text: 'Off', enabled: false });
    expect(await shown(ada)).toEqual(['Started', 'Now']);

    expect((await dismiss(ada, off.id)).status).toBe(404);
    expect((await send('PATCH', `/api/admin/banners/${off.id}`, { enabled: true }, admin.headers)).status).toBe(200);
    expect(await shown(ada)).toEqual(['Off', 'Started', 'Now']);

    // The edges, at an exact time.
    const start = new Date('2030-01-01T09:00:00Z');
    const end = new Date('2030-01-01T17:00:00Z');
    await post({ text: 'Window', startsAt: start.toISOString(), endsAt: end.toISOString() });
    const at = async (time: Date) => (await activeBannersFor(t.db, ada.user.id, time)).map((banner) => banner.text).includes('Window');
    expect(await at(new Date(start.getTime() - 1))).toBe(false);
    expect(await at(start)).toBe(true);
    expect(await at(new Date(end.getTime() - 1))).toBe(true);
    expect(await at(end)).toBe(false);
  });

  it('remembers a dismissal per user, shows an edited text again, and keeps a non-dismissible banner', async () => {
    const notice = await post({ text: 'New models are here', kind: 'success' });
    const rule = await post({ text: 'Do not paste secrets', kind: 'warning', dismissible: false });
    expect(await shown(ada)).toEqual(['Do not paste secrets', 'New models are here']);

    expect((await dismiss(ada, notice.id)).status).toBe(204);
    expect(await shown(ada)).toEqual(['Do not paste secrets']);
    // Another user still sees it; dismissing twice is harmless.
    expect(await shown(grace)).toEqual(['Do not paste secrets', 'New models are here']);
    expect((await dismiss(ada, notice.id)).status).toBe(204);

    const refused = await dismiss(ada, rule.id);
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.message).toBe('This banner cannot be dismissed');
    expect(await shown(ada)).toEqual(['Do not paste secrets']);

    // A change that keeps the text keeps the dismissal; a new text shows again.
    expect((await send('PATCH', `/api/admin/banners/${notice.id}`, { kind: 'info' }, admin.headers)).status).toBe(200);
    expect((await send('PATCH', `/api/admin/banners/${notice.id}`, { text: 'New models are here' }, admin.headers)).status).toBe(200);
    expect(await shown(ada)).toEqual(['Do not paste secrets']);
    expect((await send('PATCH', `/api/admin/banners/${notice.id}`, { text: 'New models are here: try them' }, admin.headers)).status).toBe(200);
    expect(await shown(ada)).toEqual(['Do not paste secrets', 'New models are here: try them']);
    expect((await dismiss(ada, notice.id)).status).toBe(204);
    expect(await shown(ada)).toEqual(['Do not paste secrets']);
  });

  it('reads the banners from the cached snapshot: no statement for a user with nothing to dismiss, one when a dismissible banner shows', async () => {
    const count = async (work: () => Promise<unknown>) => {
      statements.length = 0;
      await work();
      return statements.filter((statement) => /banner/.test(statement)).length;
    };
    expect(await count(() => shown(ada))).toBeLessThanOrEqual(1);
    expect(await count(() => shown(ada))).toBe(0);

    const rule = await post({ text: 'Do not paste secrets', dismissible: false });
    // The change dropped the cached copy: the new banner shows at once, then costs nothing.
    expect(await shown(grace)).toEqual(['Do not paste secrets']);
    expect(await count(() => shown(grace))).toBe(0);

    await post({ text: 'Closable' });
    await shown(grace);
    expect(await count(() => shown(grace))).toBe(1);
    expect((await send('DELETE', `/api/admin/banners/${rule.id}`, undefined, admin.headers)).status).toBe(204);
    expect(await shown(grace)).toEqual(['Closable']);
  });
});
