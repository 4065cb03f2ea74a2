import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  // The auth cache on, as in production: turning two-factor on or off must reach it.
  t = await createTestApp({ configCache: true, config: { loginThrottle: { maxPerAccount: 6, maxPerAddress: 1000, windowSeconds: 120 } } });
});
afterAll(() => t.close());

type Account = Awaited<ReturnType<typeof t.signUp>>;
const request = (method: string, path: string, headers: Record<string, string> | null, body?: unknown) =>
  t.app.request(path, { method, headers: headers ?? { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
const login = (account: Account, code?: string) => request('POST', '/api/auth/login', null, { email: account.email, password: account.password, ...(code !== undefined && { code }) });
const codeAt = (secret: string, offsetMs = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetMs });
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

/** Sets two-factor up for `account` through the API; answers the secret and the recovery codes. */
async function turnOn(account: Account): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await request('POST', '/api/auth/two-factor/setup', account.headers, { password: account.password });
  expect(setup.status, await setup.clone().text()).toBe(200);
  const { secret, uri } = (await setup.json()) as { secret: string; uri: string };
  expect(uri).toContain(`secret=${secret}`);
  const enabled = await request('POST', '/api/auth/two-factor/enable', account.headers, { code: codeAt(secret) });
  expect(enabled.status, await enabled.clone().text()).toBe(200);
  return { secret, recoveryCodes: ((await enabled.json()) as { recoveryCodes: string[] }).recoveryCodes };
}

describe('two-factor sign-in over the API', () => {
  it('is set up from the account (password, then a first code) and from then on sign-in asks for a code, once each', async () => {
    const me = await t.signUp('user');
    expect((await request('POST', '/api/auth/two-factor/setup', null, { password: me.password })).status).toBe(401);
    const wrongPassword = await request('POST', '/api/auth/two-factor/setup', me.headers, { password: 'not it at all' });
    expect(wrongPassword.status).toBe(400);
    expect((await request('POST', '/api/auth/two-factor/enable', me.headers, { code: '123456' })).status).toBe(409);
    expect(await (await request('GET', '/api/auth/two-factor', me.headers)).json()).toEqual({ enabled: false, recoveryCodesLeft: 0 });

    const { secret, recoveryCodes } = await turnOn(me);
    expect(recoveryCodes).toHaveLength(10);
    expect(await (await request('GET', '/api/auth/two-factor', me.headers)).json()).toEqual({ enabled: true, recoveryCodesLeft: 10 });
    expect(((await (await request('GET', '/api/auth/me', me.headers)).json()) as { user: { twoFactor: boolean } }).user.twoFactor).toBe(true);
    // The session that turned it on goes on working.
    expect((await request('GET', '/api/sessions', me.headers)).status).toBe(200);

    // The password alone: asked for the code (not counted against the throttle, however often).
    for (let attempt = 0; attempt < 8; attempt++) {
      const asked = await login(me);
      expect(asked.status).toBe(401);
      expect((await errorOf(asked)).code).toBe('two_factor_required');
      expect(asked.headers.get('set-cookie')).toBeNull();
    }
    const wrong = await login(me, '000000' === codeAt(secret, 30_000) ? '111111' : '000000');
    expect(wrong.status).toBe(401);
    expect((await errorOf(wrong)).code).toBe('invalid_two_factor_code');
    // A wrong password with a right code is still just a wrong password.
    const badPassword = await request('POST', '/api/auth/login', null, { email: me.email, password: 'not it at all', code: codeAt(secret, 30_000) });
    expect((await errorOf(badPassword)).code).toBe('invalid_credentials');

    const code = codeAt(secret, 30_000);
    const signedIn = await login(me, code);
    expect(signedIn.status, await signedIn.clone().text()).toBe(200);
    expect(signedIn.headers.get('set-cookie')).toContain('aq_session=');
    const replayed = await login(me, code);
    expect((await errorOf(replayed)).code).toBe('invalid_two_factor_code');

    const recovered = await login(me, recoveryCodes[0]);
    expect(recovered.status).toBe(200);
    expect((await login(me, recoveryCodes[0])).status).toBe(401);
    expect(await (await request('GET', '/api/auth/two-factor', me.headers)).json()).toEqual({ enabled: true, recoveryCodesLeft: 9 });
  });

  it('counts wrong codes like wrong passwords: past the limit, 429 even with a right one', async () => {
    const me = await t.signUp('user');
    const { secret } = await turnOn(me);
    for (let attempt = 0; attempt < 6; attempt++) expect((await login(me, 'fffff-fffff')).status).toBe(401);
    const throttled = await login(me, codeAt(secret, 30_000));
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('is turned off with the password and a code, or reset by an admin (403 for anyone else); then the password alone signs in', async () => {
    const me = await t.signUp('user');
    const other = await t.signUp('user');
    const admin = await t.signUp('admin');
    const { secret, recoveryCodes } = await turnOn(me);

    const noCode = await request('POST', '/api/auth/two-factor/disable', me.headers, { password: me.password });
    expect(noCode.status).toBe(400);
    expect((await request('POST', '/api/auth/two-factor/disable', me.headers, { password: me.password, code: 'x'.repeat(41) })).status).toBe(400);
    const renewed = await request('POST', '/api/auth/two-factor/recovery-codes', me.headers, { code: recoveryCodes[0] });
    expect(renewed.status).toBe(200);
    expect(((await renewed.json()) as { recoveryCodes: string[] }).recoveryCodes).toHaveLength(10);
    expect((await request('POST', '/api/auth/two-factor/disable', me.headers, { password: me.password, code: codeAt(secret, 30_000) })).status).toBe(204);
    expect((await login(me)).status).toBe(200);
    expect((await request('POST', '/api/auth/two-factor/disable', me.headers, { password: me.password, code: codeAt(secret) })).status).toBe(409);

    await turnOn(me);
    expect((await login(me)).status).toBe(401);
    expect((await request('DELETE', `/api/users/${me.user.id}/two-factor`, other.headers)).status).toBe(403);
    expect((await request('DELETE', `/api/users/${me.user.id}/two-factor`, admin.headers)).status).toBe(204);
    expect((await login(me)).status).toBe(200);
    expect((await request('DELETE', `/api/users/${me.user.id}/two-factor`, admin.headers)).status).toBe(409);
    expect((await request('DELETE', '/api/users/usr_missing/two-factor', admin.headers)).status).toBe(404);
    const listed = (await (await request('GET', `/api/users/${me.user.id}`, admin.headers)).json()) as { twoFactor: boolean };
    expect(listed.twoFactor).toBe(false);

    const audit = (await (await request('GET', `/api/admin/audit?targetId=${me.user.id}&action=user`, admin.headers)).json()) as { items: { action: string; actor: { id: string } }[] };
    expect(audit.items.map((event) => event.action)).toEqual(['user.two-factor-reset', 'user.two-factor-enable', 'user.two-factor-disable', 'user.recovery-codes-regenerate', 'user.two-factor-enable', 'user.create']);
    expect(audit.items[0]!.actor.id).toBe(admin.user.id);
  });
});
