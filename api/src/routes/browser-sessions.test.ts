import { auditEvents, sessions } from '@agentq/shared/db';
import { hashSecret } from '@agentq/shared/services';
import type { BrowserSessionView } from '@agentq/shared/api-types';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

/** Short enough to wait out in a test, long enough that a burst of requests falls inside it. */
const ACTIVITY_INTERVAL_MS = 1_500;

let t: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  // The auth cache on, as in production: a revocation must reach it, and last-active must not need it dropped.
  t = await createTestApp({ configCache: true, config: { sessionActivityIntervalMs: ACTIVITY_INTERVAL_MS } });
});
afterAll(() => t.close());

const MAC_CHROME = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE_SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const WINDOWS_FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

type Account = Awaited<ReturnType<typeof t.signUp>>;
type Device = { cookie: string; token: string; headers: Record<string, string> };

/** Signs `account` in once more, as a browser with this User-Agent at this address. */
async function signIn(account: Account, userAgent: string, address: string): Promise<Device> {
  const response = await t.app.request('/api/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': userAgent, 'x-forwarded-for': address },
    body: JSON.stringify({ email: account.email, password: account.password }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  const cookie = response.headers.get('set-cookie')?.split(';')[0] ?? '';
  // Later requests come from the same browser at the same address.
  return { cookie, token: decodeURIComponent(cookie.split('=')[1]!), headers: { cookie, 'content-type': 'application/json', 'user-agent': userAgent, 'x-forwarded-for': address } };
}

const list = async (device: Device) => {
  const response = await t.app.request('/api/auth/sessions', { headers: device.headers });
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: BrowserSessionView[] }).items;
};
const me = (headers: Record<string, string>) => t.app.request('/api/auth/me', { headers });
const revoke = (device: Device, id: string) => t.app.request(`/api/auth/sessions/${encodeURIComponent(id)}`, { method: 'DELETE', headers: device.headers });
const sessionOf = async (device: Device) => (await t.db.select().from(sessions).where(eq(sessions.tokenHash, hashSecret(device.token))))[0];
const lastSeenOf = async (device: Device) => (await sessionOf(device))?.lastSeenAt?.getTime();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("where you're signed in", () => {
  it('lists each sign-in with its parsed device and address, this one marked current, and never a token or hash', async () => {
    const account = await t.signUp();
    const laptop = await signIn(account, MAC_CHROME, '203.0.113.10');
    const phone = await signIn(account, IPHONE_SAFARI, '198.51.100.20');

    const seenFromLaptop = await list(laptop);
    // signUp signed in once too (no User-Agent of its own): three sessions, this one first.
    expect(seenFromLaptop).toHaveLength(3);
    expect(seenFromLaptop[0]).toMatchObject({
      current: true,
      device: { browser: 'Chrome', browserVersion: '131', os: 'macOS', type: 'desktop' },
      userAgent: MAC_CHROME,
      clientAddress: '203.0.113.10',
    });
    const phoneRow = seenFromLaptop.find((session) => session.clientAddress === '198.51.100.20');
    expect(phoneRow).toMatchObject({ current: false, device: { browser: 'Safari', browserVersion: '17', os: 'iOS', type: 'mobile' } });
    expect(seenFromLaptop.filter((session) => session.current)).toHaveLength(1);
    for (const session of seenFromLaptop) {
      expect(Object.keys(session).sort()).toEqual(['clientAddress', 'current', 'device', 'expiresAt', 'id', 'lastSeenAt', 'signedInAt', 'userAgent']);
      expect(Date.parse(session.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(session.signedInAt));
    }
    // From the phone, the phone is the current one.
    const seenFromPhone = await list(phone);
    expect(seenFromPhone[0]).toMatchObject({ id: phoneRow!.id, current: true });

    const text = JSON.stringify(seenFromLaptop);
    for (const secret of [laptop.token, phone.token, hashSecret(laptop.token), hashSecret(phone.token), 'tokenHash']) expect(text).not.toContain(secret);
  });

  it('signs another session out at once, through the auth cache, while this one keeps working; audited', async () => {
    const account = await t.signUp();
    const laptop = await signIn(account, MAC_CHROME, '203.0.113.11');
    const phone = await signIn(account, IPHONE_SAFARI, '198.51.100.21');
    // Both cached by now.
    expect((await me(phone.headers)).status).toBe(200);
    expect((await me(laptop.headers)).status).toBe(200);

    const phoneId = (await sessionOf(phone))!.id;
    expect((await revoke(laptop, phoneId)).status).toBe(204);
    expect((await me(phone.headers)).status).toBe(401);
    expect((await me(laptop.headers)).status).toBe(200);
    expect((await list(laptop)).map((session) => session.id)).not.toContain(phoneId);
    // Gone is gone: a second time is 404.
    expect((await revoke(laptop, phoneId)).status).toBe(404);

    const [audit] = await t.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'auth.session-revoke'), eq(auditEvents.targetId, phoneId)));
    expect(audit).toMatchObject({ actorUserId: account.user.id, targetType: 'session', details: { clientAddress: '203.0.113.11' } });
  });

  it('refuses to revoke the current session (that is a sign-out) and answers 404 for another user’s or an unknown one', async () => {
    const account = await t.signUp();
    const laptop = await signIn(account, MAC_CHROME, '203.0.113.12');
    const own = (await list(laptop)).find((session) => session.current)!;
    const refused = await revoke(laptop, own.id);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'current_session', message: expect.stringContaining('/api/auth/logout') });
    expect((await me(laptop.headers)).status).toBe(200);

    const stranger = await t.signUp();
    const strangersSession = (await list({ ...stranger, token: '' }))[0]!;
    expect((await revoke(laptop, strangersSession.id)).status).toBe(404);
    expect((await me(stranger.headers)).status).toBe(200);
    expect((await revoke(laptop, 'ses_unknown')).status).toBe(404);
    expect((await t.app.request(`/api/auth/sessions/${own.id}`, { method: 'DELETE' })).status).toBe(401);
    expect((await t.app.request('/api/auth/sessions')).status).toBe(401);
  });

  it('signs out every other session at once and says how many; audited', async () => {
    const account = await t.signUp();
    const laptop = await signIn(account, MAC_CHROME, '203.0.113.13');
    const phone = await signIn(account, IPHONE_SAFARI, '198.51.100.23');
    const desktop = await signIn(account, WINDOWS_FIREFOX, '192.0.2.33');
    for (const device of [laptop, phone, desktop]) expect((await me(device.headers)).status).toBe(200);

    const response = await t.app.request('/api/auth/sessions/revoke-others', { method: 'POST', headers: laptop.headers });
    expect(response.status).toBe(200);
    // Phone, desktop and signUp's own sign-in.
    expect(await response.json()).toEqual({ revoked: 3 });
    for (const device of [phone, desktop]) expect((await me(device.headers)).status).toBe(401);
    expect((await me(account.headers)).status).toBe(401);
    expect((await me(laptop.headers)).status).toBe(200);
    expect((await list(laptop)).map((session) => session.current)).toEqual([true]);

    const again = await t.app.request('/api/auth/sessions/revoke-others', { method: 'POST', headers: laptop.headers });
    expect(await again.json()).toEqual({ revoked: 0 });
    const audits = await t.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'auth.sessions-revoke-others'), eq(auditEvents.targetId, account.user.id)));
    expect(audits).toHaveLength(1);
    expect(audits[0]!.details).toEqual({ revoked: 3, clientAddress: '203.0.113.13' });
  });

  it('moves "last active" after the response, at most once per interval, however many requests', async () => {
    const account = await t.signUp();
    const laptop = await signIn(account, MAC_CHROME, '203.0.113.14');
    const signedIn = await lastSeenOf(laptop);
    expect(signedIn).toBeDefined();

    // Within the interval of signing in: nothing written.
    for (let request = 0; request < 5; request++) expect((await me(laptop.headers)).status).toBe(200);
    await sleep(100);
    expect(await lastSeenOf(laptop)).toBe(signedIn);

    // Past it: the next request writes once (after its response)...
    await sleep(ACTIVITY_INTERVAL_MS);
    expect((await me(laptop.headers)).status).toBe(200);
    await expect.poll(() => lastSeenOf(laptop), { timeout: 2_000 }).toBeGreaterThan(signedIn!);
    const touched = (await lastSeenOf(laptop))!;

    // ...and the burst after it writes nothing more, though the cached session still holds the old time.
    for (let request = 0; request < 10; request++) expect((await me(laptop.headers)).status).toBe(200);
    await sleep(100);
    expect(await lastSeenOf(laptop)).toBe(touched);

    // The list shows another session's time as stored, and this one's as now.
    const other = await signIn(account, IPHONE_SAFARI, '198.51.100.24');
    const listed = await list(other);
    expect(Date.parse(listed.find((session) => session.clientAddress === '203.0.113.14')!.lastSeenAt)).toBe(touched);
    expect(Date.parse(listed[0]!.lastSeenAt)).toBeGreaterThanOrEqual(Date.now() - 1_000);
  });

  it('never touches a session for an API-token request, even one that also carries the cookie', async () => {
    const account = await t.signUp();
    const laptop = await signIn(account, MAC_CHROME, '203.0.113.15');
    const created = await t.app.request('/api/auth/tokens', { method: 'POST', headers: laptop.headers, body: JSON.stringify({ name: 'script' }) });
    const { token } = (await created.json()) as { token: string };
    const before = await t.db.select({ id: sessions.id, lastSeenAt: sessions.lastSeenAt }).from(sessions).where(eq(sessions.userId, account.user.id));
    const laptopBefore = (await lastSeenOf(laptop))!;

    await sleep(ACTIVITY_INTERVAL_MS + 100);
    for (let request = 0; request < 3; request++) {
      expect((await me({ authorization: `Bearer ${token}` })).status).toBe(200);
      expect((await me({ authorization: `Bearer ${token}`, cookie: laptop.cookie })).status).toBe(200);
    }
    await sleep(200);
    const after = await t.db.select({ id: sessions.id, lastSeenAt: sessions.lastSeenAt }).from(sessions).where(eq(sessions.userId, account.user.id));
    expect(after).toEqual(before);
    // The same wait with the cookie alone does move it: the silence above was the token's doing.
    expect((await me(laptop.headers)).status).toBe(200);
    await expect.poll(() => lastSeenOf(laptop), { timeout: 2_000 }).toBeGreaterThan(laptopBefore);

    // A token lists the sessions with none current, and "others" are all of them.
    const listed = await t.app.request('/api/auth/sessions', { headers: { authorization: `Bearer ${token}` } });
    expect(((await listed.json()) as { items: BrowserSessionView[] }).items.every((session) => !session.current)).toBe(true);
    const revoked = await t.app.request('/api/auth/sessions/revoke-others', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(await revoked.json()).toEqual({ revoked: 2 });
    expect((await me(laptop.headers)).status).toBe(401);
  });
});
