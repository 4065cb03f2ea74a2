import { sessions } from '@agentq/shared/db';
import { hashSecret } from '@agentq/shared/services';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  // Sessions are read through the auth cache, as the API runtime reads them.
  t = await createTestApp({ configCache: true });
});
afterAll(() => t.close());

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('session auth', () => {
  it('logs in with the right password, sets an HttpOnly SameSite=Lax cookie, and /me answers', async () => {
    const { email, password } = await t.signUp();
    const login = await t.app.request('/api/auth/login', json({ email, password }));
    expect(login.status).toBe(200);
    expect((await login.json()).user.email).toBe(email);
    const setCookie = login.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^aq_session=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const me = await t.app.request('/api/auth/me', { headers: { cookie: setCookie.split(';')[0]! } });
    expect(me.status).toBe(200);
    expect((await me.json()).user).toMatchObject({ email, role: 'user' });
    // The sign-in page's question: answered 200 whether or not the caller is signed in.
    const session = await t.app.request('/api/auth/session', { headers: { cookie: setCookie.split(';')[0]! } });
    expect(session.status).toBe(200);
    expect((await session.json()).user).toMatchObject({ email, role: 'user' });
    const anonymous = await t.app.request('/api/auth/session');
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ user: null });
  });

  it('answers 401 for a wrong password and for an unknown email, with the same message', async () => {
    const { email } = await t.signUp();
    const wrong = await t.app.request('/api/auth/login', json({ email, password: 'not the password' }));
    const unknown = await t.app.request('/api/auth/login', json({ email: 'nobody@test.local', password: 'whatever1' }));
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect((await wrong.json()).error.message).toBe((await unknown.json()).error.message);
  });

  it('logout ends the session server-side', async () => {
    const { cookie } = await t.signUp();
    expect((await t.app.request('/api/auth/me', { headers: { cookie } })).status).toBe(200);
    const logout = await t.app.request('/api/auth/logout', { method: 'POST', headers: { cookie } });
    expect(logout.status).toBe(204);
    expect((await t.app.request('/api/auth/me', { headers: { cookie } })).status).toBe(401);
  });

  it('rejects an expired session with 401', async () => {
    const { cookie } = await t.signUp();
    const token = decodeURIComponent(cookie.split('=')[1]!);
    await t.db.update(sessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(sessions.tokenHash, hashSecret(token)));
    expect((await t.app.request('/api/auth/me', { headers: { cookie } })).status).toBe(401);
  });

  it('answers 401 without credentials and 403 for a user on an admin route', async () => {
    expect((await t.app.request('/api/users')).status).toBe(401);
    const { cookie } = await t.signUp('user');
    const forbidden = await t.app.request('/api/users', { headers: { cookie } });
    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()).error.code).toBe('forbidden');
  });
});

describe('API tokens', () => {
  it('creates a token shown once, authenticates with it, lists it without the secret, and a revoked one is 401', async () => {
    const { headers, email } = await t.signUp();
    const created = await t.app.request('/api/auth/tokens', { method: 'POST', headers, body: JSON.stringify({ name: 'ci' }) });
    expect(created.status).toBe(201);
    const token = await created.json();
    expect(token.token).toMatch(/^aq_/);
    expect(token.id).toBeTruthy();

    const bearer = { authorization: `Bearer ${token.token}` };
    const me = await t.app.request('/api/auth/me', { headers: bearer });
    expect(me.status).toBe(200);
    expect((await me.json()).user.email).toBe(email);

    const list = await (await t.app.request('/api/auth/tokens', { headers })).json();
    expect(list.items).toHaveLength(1);
    expect(JSON.stringify(list)).not.toContain(token.token);
    expect(list.items[0].lastUsedAt).not.toBeNull();

    expect((await t.app.request(`/api/auth/tokens/${token.id}`, { method: 'DELETE', headers })).status).toBe(204);
    expect((await t.app.request('/api/auth/me', { headers: bearer })).status).toBe(401);
    expect((await t.app.request(`/api/auth/tokens/${token.id}`, { method: 'DELETE', headers })).status).toBe(404);
  });

  it("cannot revoke another user's token", async () => {
    const owner = await t.signUp();
    const other = await t.signUp();
    const token = await (await t.app.request('/api/auth/tokens', { method: 'POST', headers: owner.headers, body: JSON.stringify({ name: 'mine' }) })).json();
    expect((await t.app.request(`/api/auth/tokens/${token.id}`, { method: 'DELETE', headers: other.headers })).status).toBe(404);
    expect((await t.app.request('/api/auth/me', { headers: { authorization: `Bearer ${token.token}` } })).status).toBe(200);
  });

  it('rejects a made-up bearer token with 401', async () => {
    expect((await t.app.request('/api/auth/me', { headers: { authorization: 'Bearer aq_madeup' } })).status).toBe(401);
  });
});

describe('admin user management', () => {
  it('creates, lists, updates and deletes users; duplicate email is 409; bad input is 400 with issues', async () => {
    const { headers } = await t.signUp('admin');
    const created = await t.app.request('/api/users', { method: 'POST', headers, body: JSON.stringify({ email: 'New.Person@Test.local', name: 'New', password: 'longenough1' }) });
    expect(created.status).toBe(201);
    const user = await created.json();
    expect(user).toMatchObject({ email: 'new.person@test.local', role: 'user' });
    expect(JSON.stringify(user)).not.toContain('password');

    const duplicate = await t.app.request('/api/users', { method: 'POST', headers, body: JSON.stringify({ email: 'new.person@test.local', name: 'Again', password: 'longenough1' }) });
    expect(duplicate.status).toBe(409);

    const bad = await t.app.request('/api/users', { method: 'POST', headers, body: JSON.stringify({ email: 'not-an-email', name: '', password: 'short' }) });
    expect(bad.status).toBe(400);
    const badBody = await bad.json();
    expect(badBody.error.issues.map((issue: { path: string[] }) => issue.path[0]).sort()).toEqual(['email', 'name', 'password']);

    const promoted = await t.app.request(`/api/users/${user.id}`, { method: 'PATCH', headers, body: JSON.stringify({ role: 'admin' }) });
    expect((await promoted.json()).role).toBe('admin');
    const list = await (await t.app.request('/api/users', { headers })).json();
    expect(list.items.some((item: { id: string }) => item.id === user.id)).toBe(true);
    expect((await t.app.request(`/api/users/${user.id}`, { method: 'DELETE', headers })).status).toBe(204);
    expect((await t.app.request(`/api/users/${user.id}`, { headers })).status).toBe(404);
  });

  it('an admin cannot delete themselves', async () => {
    const { headers, user } = await t.signUp('admin');
    expect((await t.app.request(`/api/users/${user.id}`, { method: 'DELETE', headers })).status).toBe(409);
  });
});
