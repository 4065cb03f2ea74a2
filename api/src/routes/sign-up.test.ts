import { auditEvents, users } from '@agentq/shared/db';
import { uniqueEmail } from '@agentq/shared/testing';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
let off: TestApp;
let open: TestApp;
let approval: TestApp;

beforeAll(async () => {
  [off, open, approval] = await Promise.all([
    createTestApp(),
    createTestApp({ config: { signUp: { mode: 'open', emailDomains: [], rateLimit: { max: 8, windowSeconds: 3600 } } } }),
    createTestApp({ config: { signUp: { mode: 'approval', emailDomains: ['example.com'] } } }),
  ]);
});
afterAll(async () => {
  await Promise.all([off?.close(), open?.close(), approval?.close()]);
});

const json = { 'content-type': 'application/json' };
const signUp = (app: TestApp, body: unknown) => app.app.request('/api/auth/sign-up', { method: 'POST', headers: json, body: JSON.stringify(body) });
const logIn = (app: TestApp, email: string, password: string) => app.app.request('/api/auth/login', { method: 'POST', headers: json, body: JSON.stringify({ email, password }) });
const person = (domain = 'example.com') => ({ name: 'Grace Hopper', email: uniqueEmail('signup').replace(/@.*/, `@${domain}`), password: 'a long password' });
const rowsOf = (app: TestApp, email: string) => app.db.select().from(users).where(eq(users.email, email));
const providers = async (app: TestApp) => ((await (await app.app.request('/api/auth/providers')).json()) as { signUp: string | null }).signUp;

describe('sign-up', () => {
  it('is refused (403) where the server takes none, the default, and the sign-in page is told so', async () => {
    const who = person();
    const refused = await signUp(off, who);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('sign_up_disabled');
    expect(await rowsOf(off, who.email)).toEqual([]);
    expect(await providers(off)).toBeNull();
  });

  it('open: makes the account, signs the browser in, and refuses bad input, a taken email and too many sign-ups', async () => {
    expect(await providers(open)).toBe('open');
    for (const [body, field] of [
      [{ ...person(), email: 'not an email' }, 'email'],
      [{ ...person(), password: 'short' }, 'password'],
      [{ ...person(), name: '   ' }, 'name'],
      [{ email: uniqueEmail('signup'), password: 'a long password' }, 'name'],
    ] as const) {
      const refused = await signUp(open, body);
      expect(refused.status, field).toBe(400);
      expect((await refused.json()).error.issues.map((issue: { path: string[] }) => issue.path[0]), field).toContain(field);
    }
    // Nobody may pick their role.
    const who = { ...person(), role: 'admin' };
    const made = await signUp(open, who);
    expect(made.status).toBe(201);
    const body = (await made.json()) as { user: { id: string; role: string; awaitingApproval: boolean }; awaitingApproval: boolean };
    expect(body).toMatchObject({ awaitingApproval: false, user: { role: 'user', awaitingApproval: false } });
    const cookie = made.headers.get('set-cookie')?.split(';')[0] ?? '';
    expect(cookie).toMatch(/^aq_session=/);
    expect((await (await open.app.request('/api/auth/me', { headers: { cookie } })).json()).user.email).toBe(who.email);
    const [audit] = await open.db.select().from(auditEvents).where(and(eq(auditEvents.targetId, body.user.id), eq(auditEvents.action, 'user.create')));
    expect(audit).toMatchObject({ actorUserId: body.user.id, details: { role: 'user', method: 'sign-up' } });

    const taken = await signUp(open, { ...person(), email: who.email.toUpperCase() });
    expect(taken.status).toBe(409);
    expect(await rowsOf(open, who.email)).toHaveLength(1);

    // Eight sign-ups an hour from one address here (five by default); the rest wait.
    let last: Response | undefined;
    for (let attempt = 0; attempt < 8; attempt++) last = await signUp(open, person());
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('approval: the account waits, cannot log in (told why, only with the right password) until an admin approves it', async () => {
    expect(await providers(approval)).toBe('approval');
    const outsider = await signUp(approval, person('elsewhere.org'));
    expect(outsider.status).toBe(400);
    expect((await outsider.json()).error.issues[0].path).toEqual(['email']);

    const who = person();
    const made = await signUp(approval, who);
    expect(made.status).toBe(202);
    expect(await made.json()).toMatchObject({ awaitingApproval: true, user: { awaitingApproval: true } });
    expect(made.headers.get('set-cookie')).toBeNull();
    const waiting = await logIn(approval, who.email, who.password);
    expect(waiting.status).toBe(403);
    expect((await waiting.json()).error.code).toBe('approval_pending');
    expect(waiting.headers.get('set-cookie')).toBeNull();
    expect((await (await logIn(approval, who.email, 'not the password')).json()).error.code).toBe('invalid_credentials');

    const admin = await approval.signUp('admin');
    const listed = (await (await approval.app.request('/api/users?awaitingApproval=true&limit=200', { headers: admin.headers })).json()) as { items: { id: string; email: string }[]; total: number };
    expect(listed.items.map((user) => user.email)).toContain(who.email);
    expect(listed.items.every((user) => user.email !== admin.email)).toBe(true);
    const id = listed.items.find((user) => user.email === who.email)!.id;
    expect((await approval.app.request('/api/users?awaitingApproval=maybe', { headers: admin.headers })).status).toBe(400);
    // Only `approved: true` approves; a plain user cannot.
    expect((await approval.app.request(`/api/users/${id}`, { method: 'PATCH', headers: admin.headers, body: JSON.stringify({ approved: false }) })).status).toBe(400);
    const user = await approval.signUp('user');
    expect((await approval.app.request(`/api/users/${id}`, { method: 'PATCH', headers: user.headers, body: JSON.stringify({ approved: true }) })).status).toBe(403);
    const approved = await approval.app.request(`/api/users/${id}`, { method: 'PATCH', headers: admin.headers, body: JSON.stringify({ approved: true }) });
    expect(approved.status).toBe(200);
    expect((await approved.json()).awaitingApproval).toBe(false);
    const [change] = await approval.db.select().from(auditEvents).where(and(eq(auditEvents.targetId, id), eq(auditEvents.action, 'user.update'))).orderBy(desc(auditEvents.id)).limit(1);
    expect(change?.details).toMatchObject({ fields: ['approved'] });

    const signedIn = await logIn(approval, who.email, who.password);
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get('set-cookie')).toMatch(/^aq_session=/);
  });
});
