import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const send = (method: string, headers: Record<string, string>, body: unknown) => ({ method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const login = (email: string, password: string) => t.app.request('/api/auth/login', send('POST', {}, { email, password }));

describe('self-service profile', () => {
  it('changes your own name and UI language, and /me reports them', async () => {
    const { headers } = await t.signUp();
    const patched = await t.app.request('/api/auth/me', send('PATCH', headers, { name: 'Ada Lovelace', locale: 'zh' }));
    expect(patched.status).toBe(200);
    const me = await (await t.app.request('/api/auth/me', { headers })).json();
    expect(me.user).toMatchObject({ name: 'Ada Lovelace', locale: 'zh' });
  });

  it('refuses an empty name and an unknown language with a field message', async () => {
    const { headers } = await t.signUp();
    const empty = await t.app.request('/api/auth/me', send('PATCH', headers, { name: '  ' }));
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.issues[0]).toMatchObject({ path: ['name'], message: 'Enter your name' });
    expect((await t.app.request('/api/auth/me', send('PATCH', headers, { locale: 'fr' }))).status).toBe(400);
  });

  it('cannot make yourself an admin through the profile', async () => {
    const { headers } = await t.signUp();
    await t.app.request('/api/auth/me', send('PATCH', headers, { role: 'admin' }));
    expect((await (await t.app.request('/api/auth/me', { headers })).json()).user.role).toBe('user');
  });
});

describe('password change', () => {
  it('needs the current password, keeps this session, ends the others, and the new password signs in', async () => {
    const { email, password, headers } = await t.signUp();
    const other = (await login(email, password)).headers.get('set-cookie')!.split(';')[0]!;
    const wrong = await t.app.request('/api/auth/password', send('POST', headers, { currentPassword: 'not it at all', newPassword: 'a-new-password' }));
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error.issues[0]).toMatchObject({ path: ['currentPassword'] });
    const short = await t.app.request('/api/auth/password', send('POST', headers, { currentPassword: password, newPassword: 'short' }));
    expect(short.status).toBe(400);

    const changed = await t.app.request('/api/auth/password', send('POST', headers, { currentPassword: password, newPassword: 'a-new-password' }));
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ revoked: { sessions: 1 } });
    expect((await t.app.request('/api/auth/me', { headers })).status).toBe(200);
    expect((await t.app.request('/api/auth/me', { headers: { cookie: other } })).status).toBe(401);
    expect((await login(email, password)).status).toBe(401);
    expect((await login(email, 'a-new-password')).status).toBe(200);
  });
});

describe('admin disables a user', () => {
  it('a disabled user cannot sign in, their session and tokens are revoked, and enabling restores sign-in only', async () => {
    const admin = await t.signUp('admin');
    const { user, email, password, headers } = await t.signUp();
    const token = (await (await t.app.request('/api/auth/tokens', send('POST', headers, { name: 'cli' }))).json()).token as string;

    const disabled = await t.app.request(`/api/users/${user.id}`, send('PATCH', admin.headers, { disabled: true }));
    expect(disabled.status).toBe(200);
    expect((await disabled.json()).disabledAt).toBeTruthy();
    expect((await t.app.request('/api/auth/me', { headers })).status).toBe(401);
    expect((await t.app.request('/api/auth/me', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect((await login(email, password)).status).toBe(401);

    await t.app.request(`/api/users/${user.id}`, send('PATCH', admin.headers, { disabled: false }));
    expect((await login(email, password)).status).toBe(200);
    // Revoked, not suspended: a token from before the disable stays dead.
    expect((await t.app.request('/api/auth/me', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('an admin cannot disable themselves', async () => {
    const admin = await t.signUp('admin');
    const response = await t.app.request(`/api/users/${admin.user.id}`, send('PATCH', admin.headers, { disabled: true }));
    expect(response.status).toBe(409);
  });
});
