import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { auditEvents, userIdentities, users } from '@agentq/shared/db';
import { createLogger } from '@agentq/shared/logger';
import { signUpUser, type OidcPolicy, type OidcSettings } from '@agentq/shared/services';
import { uniqueEmail } from '@agentq/shared/testing';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOidcProvider, type FakeLogin, type FakeOidcProvider } from '../../../infra/testing/fake-oidc-provider';
import { createTestApp } from '../testing';
import { oidcStateCookie } from './oidc';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

const ADMIN_GROUP = 'agentq-admins';
// Never connected to: the callback URL is only read back from the provider's redirect.
const PUBLIC_ORIGIN = 'http://localhost:3000';

let provider: FakeOidcProvider;
let t: TestApp;

/** The app's log, and every code and state the tests saw in a URL: none may be logged or audited. */
const logLines: string[] = [];
const destination = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});
const urlSecrets = new Set<string>();

function settings(policy: Partial<OidcPolicy> = {}, issuer = provider.issuer): OidcSettings {
  return {
    issuer: new URL(issuer),
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    displayName: 'Test IdP',
    scopes: ['openid', 'email', 'profile'],
    redirectUri: `${PUBLIC_ORIGIN}/api/auth/oidc/callback`,
    allowInsecureHttp: true,
    policy: { autoCreateUsers: true, allowedEmailDomains: [], adminGroups: [ADMIN_GROUP], groupsClaim: 'groups', ...policy },
  };
}

beforeAll(async () => {
  provider = await startFakeOidcProvider();
  // Sessions through the auth cache, as the API runtime reads them: a promotion must reach it.
  t = await createTestApp({ configCache: true, oidc: settings(), logger: createLogger({ level: 'info', destination }) });
  await redisReady(t);
});
afterAll(async () => {
  await t?.close();
  await provider?.close();
});

/** The app's Redis connection queues nothing while connecting (it fails fast, as request handlers want): wait for it. */
async function redisReady(app: TestApp): Promise<void> {
  if (app.redis.status !== 'ready') await once(app.redis, 'ready');
}

/** A person at the provider with a fresh subject and email. */
function person(claims: Record<string, unknown> = {}): { sub: string; email: string } & Record<string, unknown> {
  return { sub: `sub-${randomBytes(6).toString('hex')}`, email: uniqueEmail('sso'), email_verified: true, name: 'Ada Lovelace', ...claims };
}

/** A cookie of a response's Set-Cookie headers, as `name=value` (undefined when not set or when cleared). */
function cookieOf(response: Response, name: string): string | undefined {
  const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
  const pair = line?.split(';')[0];
  return pair && pair !== `${name}=` ? pair : undefined;
}

/** The browser's first two legs: our start endpoint, then the provider's /authorize (real HTTP on loopback). */
async function startAtProvider(app: TestApp, login: FakeLogin, next?: string) {
  provider.setLogin(login);
  const start = await app.app.request(`/api/auth/oidc/start${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}`);
  expect(start.status, await start.clone().text()).toBe(302);
  const stateCookie = start.headers.getSetCookie().find((cookie) => cookie.startsWith('aq_oidc_state_'))?.split(';')[0] ?? '';
  const atProvider = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  expect(atProvider.status).toBe(302);
  const callback = new URL(atProvider.headers.get('location')!);
  for (const name of ['code', 'state']) if (callback.searchParams.get(name)) urlSecrets.add(callback.searchParams.get(name)!);
  expect(callback.origin + callback.pathname).toBe(`${PUBLIC_ORIGIN}/api/auth/oidc/callback`);
  return { start, stateCookie, callbackPath: callback.pathname + callback.search };
}

/** The whole trip: start, provider, callback; answers the callback's response and the session cookie it set. */
async function signIn(login: FakeLogin, options: { app?: TestApp; next?: string } = {}) {
  const app = options.app ?? t;
  const trip = await startAtProvider(app, login, options.next);
  const response = await app.app.request(trip.callbackPath, { headers: { cookie: trip.stateCookie } });
  expect(response.status).toBe(302);
  return { ...trip, response, location: response.headers.get('location')!, session: cookieOf(response, 'aq_session') };
}

async function me(app: TestApp, session: string | undefined) {
  const response = await app.app.request('/api/auth/me', { headers: { cookie: session ?? '' } });
  return response.status === 200 ? ((await response.json()) as { user: { id: string; email: string; role: string; hasPassword: boolean; name: string } }).user : null;
}

async function lastAudit(app: TestApp, action: string, targetId: string) {
  const [row] = await app.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.targetId, targetId)))
    .orderBy(desc(auditEvents.id))
    .limit(1);
  return row;
}

const passwordLogin = (app: TestApp, email: string, password: string) =>
  app.app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });

describe('single sign-on (OpenID Connect)', () => {
  it('tells the login page about the provider; an app without SSO says null', async () => {
    expect(await (await t.app.request('/api/auth/providers')).json()).toEqual({ oidc: { displayName: 'Test IdP', startPath: '/api/auth/oidc/start' }, signUp: null, passwordReset: false, emailVerification: false });
    const plain = await createTestApp();
    try {
      expect(await (await plain.app.request('/api/auth/providers')).json()).toEqual({ oidc: null, signUp: null, passwordReset: false, emailVerification: false });
      const start = await plain.app.request('/api/auth/oidc/start');
      expect(start.headers.get('location')).toBe('/login?sso_error=not_configured');
    } finally {
      await plain.close();
    }
  });

  it('creates an account at the first sign-in and sets the session cookie, with PKCE, state and nonce on the way', async () => {
    const who = person();
    const { start, response, location, session, stateCookie: sentState } = await signIn({ claims: who }, { next: '/documents?tab=memory' });

    // The start: a provider URL with everything the code flow needs, and the state bound to this browser.
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.origin).toBe(provider.issuer);
    for (const param of ['state', 'nonce', 'code_challenge']) expect(authorize.searchParams.get(param)).toMatch(/^[\w-]{20,}$/);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('scope')).toBe('openid email profile');
    const stateCookie = start.headers.getSetCookie().find((cookie) => cookie.startsWith('aq_oidc_state_'))!;
    expect(stateCookie).toMatch(/HttpOnly/i);
    expect(stateCookie).toMatch(/SameSite=Lax/i);
    expect(stateCookie).toMatch(/Path=\/api\/auth\/oidc/);
    // The client secret rides in the Basic header of the token request, never in a URL.
    expect(authorize.href).not.toContain(provider.clientSecret);
    expect(provider.tokenRequests.at(-1)).toEqual({ clientAuth: 'basic', pkce: true, status: 200 });

    // The callback: the same session cookie a password sign-in sets, the state cookie cleared, on to `next`.
    expect(location).toBe('/documents?tab=memory');
    expect(response.headers.getSetCookie().find((cookie) => cookie.startsWith('aq_session='))).toMatch(/HttpOnly.*SameSite=Lax|SameSite=Lax.*HttpOnly/i);
    expect(response.headers.getSetCookie()).toContainEqual(expect.stringMatching(new RegExp(`^${sentState.split('=')[0]}=;`)));
    const user = await me(t, session);
    expect(user).toMatchObject({ email: who.email, name: 'Ada Lovelace', role: 'user', hasPassword: false });

    const [link] = await t.db.select().from(userIdentities).where(eq(userIdentities.userId, user!.id));
    expect(link).toMatchObject({ issuer: provider.issuer, subject: who.sub, email: who.email });
    expect((await lastAudit(t, 'user.create', user!.id))?.details).toMatchObject({ role: 'user', method: 'oidc' });
    const signInRow = await lastAudit(t, 'auth.sign-in', user!.id);
    expect(signInRow).toMatchObject({ actorUserId: user!.id, targetType: 'user' });
    expect(signInRow?.details).toMatchObject({ method: 'oidc', issuer: provider.issuer, created: true });
  });

  it('finds the same account by subject at the next sign-in, even after the email changed at the provider', async () => {
    const who = person();
    const first = await me(t, (await signIn({ claims: who })).session);
    const second = await me(t, (await signIn({ claims: { ...who, email: uniqueEmail('renamed') } })).session);
    expect(second?.id).toBe(first!.id);
    expect(second?.email).toBe(who.email);
    expect((await lastAudit(t, 'auth.sign-in', first!.id))?.details).not.toHaveProperty('created');
  });

  it('links an existing password account with the same verified email; its password keeps working, and no TOTP is asked', async () => {
    const account = await t.signUp('user');
    // Two-factor is on for password sign-ins; SSO leaves MFA to the provider.
    // And it had not confirmed its email (a sign-up under SIGNUP_VERIFY_EMAIL): the provider's verified email confirms it.
    await t.db.update(users).set({ twoFactorEnabledAt: new Date(), emailVerifiedAt: null }).where(eq(users.id, account.user.id));
    const who = person({ email: account.email.toUpperCase() });
    const { session, location } = await signIn({ claims: who });
    expect(location).toBe('/chat');
    expect(await me(t, session)).toMatchObject({ id: account.user.id, hasPassword: true, emailVerified: true });
    expect((await lastAudit(t, 'auth.sign-in', account.user.id))?.details).toMatchObject({ method: 'oidc', linked: true });
    const [link] = await t.db.select().from(userIdentities).where(eq(userIdentities.subject, who.sub));
    expect(link?.userId).toBe(account.user.id);
    expect((await (await passwordLogin(t, account.email, account.password)).json()).error.code).toBe('two_factor_required');
  });

  it('refuses an email the provider does not vouch for: no account made or matched', async () => {
    const account = await t.signUp('user');
    for (const verified of [false, undefined, 'yes']) {
      const who = person({ email: account.email, email_verified: verified });
      const { location, session } = await signIn({ claims: who });
      expect(location).toBe('/login?sso_error=email_not_verified');
      expect(session).toBeUndefined();
      expect((await lastAudit(t, 'auth.sign-in-failed', account.email))?.details).toMatchObject({ method: 'oidc', reason: 'email_not_verified' });
      expect(await t.db.select().from(userIdentities).where(eq(userIdentities.subject, who.sub))).toEqual([]);
    }
    // Cognito sends the string "true".
    const stringly = person({ email_verified: 'true' });
    expect(await me(t, (await signIn({ claims: stringly })).session)).toMatchObject({ email: stringly.email });
  });

  it('refuses a state that is missing, from another browser, or already used, and a replayed callback', async () => {
    const trip = await startAtProvider(t, { claims: person() });
    const noCookie = await t.app.request(trip.callbackPath);
    expect(noCookie.headers.get('location')).toBe('/login?sso_error=state_mismatch');
    // Another browser's own state cookie does not fit this callback.
    const other = await startAtProvider(t, { claims: person() });
    const crossed = await t.app.request(trip.callbackPath, { headers: { cookie: other.stateCookie } });
    expect(crossed.headers.get('location')).toBe('/login?sso_error=state_mismatch');
    expect((await lastAudit(t, 'auth.sign-in-failed', provider.issuer + '/'))?.details).toMatchObject({ method: 'oidc', reason: 'state_mismatch' });

    // The right browser completes it once; the same callback again (cookie and all) is refused.
    const who = person();
    const done = await signIn({ claims: who });
    expect(done.session).toBeDefined();
    const replay = await t.app.request(done.callbackPath, { headers: { cookie: done.stateCookie } });
    expect(replay.headers.get('location')).toBe('/login?sso_error=state_mismatch');
    expect(cookieOf(replay, 'aq_session')).toBeUndefined();
    // A forged callback carrying a made-up state with a matching cookie finds no sign-in either.
    const forged = await t.app.request('/api/auth/oidc/callback?code=x&state=made-up', { headers: { cookie: `${oidcStateCookie('made-up')}=made-up` } });
    expect(forged.headers.get('location')).toBe('/login?sso_error=state_mismatch');
  });

  it('completes two sign-ins started in two tabs of one browser, in either order', async () => {
    const [first, second] = [await startAtProvider(t, { claims: person() }), await startAtProvider(t, { claims: person() })];
    const cookies = `${first.stateCookie}; ${second.stateCookie}`;
    for (const trip of [second, first]) {
      const response = await t.app.request(trip.callbackPath, { headers: { cookie: cookies } });
      expect(response.headers.get('location')).toBe('/chat');
      expect(await me(t, cookieOf(response, 'aq_session'))).not.toBeNull();
    }
  });

  it.each([
    ['a wrong nonce', 'wrong-nonce'],
    ['a key the provider never published', 'foreign-key'],
    ['an expired ID token', 'expired'],
    ['another audience', 'wrong-audience'],
    ['another issuer', 'wrong-issuer'],
  ] as const)('refuses an ID token with %s', async (_, tamper) => {
    const who = person();
    const { location, session } = await signIn({ claims: who, tamper }, { next: '/documents' });
    expect(location).toBe('/login?sso_error=invalid_token&next=%2Fdocuments');
    expect(session).toBeUndefined();
    expect(await t.db.select().from(users).where(eq(users.email, who.email))).toEqual([]);
    const [failure] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'auth.sign-in-failed'), eq(auditEvents.targetType, 'oidc')))
      .orderBy(desc(auditEvents.id))
      .limit(1);
    expect(failure?.details).toMatchObject({ method: 'oidc', reason: 'invalid_token' });
  });

  it("says so when the person cancels at the provider, or the provider is down", async () => {
    const cancelled = await signIn({ error: 'access_denied' }, { next: '/agents' });
    expect(cancelled.location).toBe('/login?sso_error=provider_error&next=%2Fagents');
    const down = await createTestApp({ oidc: settings({}, 'http://127.0.0.1:9') });
    try {
      const start = await down.app.request('/api/auth/oidc/start?next=/agents');
      expect(start.headers.get('location')).toBe('/login?sso_error=unavailable&next=%2Fagents');
    } finally {
      await down.close();
    }
  });

  it('refuses a disabled account, whether found by subject or by email', async () => {
    const who = person();
    const user = await me(t, (await signIn({ claims: who })).session);
    await t.db.update(users).set({ disabledAt: new Date() }).where(eq(users.id, user!.id));
    const again = await signIn({ claims: who });
    expect(again.location).toBe('/login?sso_error=account_disabled');
    expect(again.session).toBeUndefined();
    expect((await lastAudit(t, 'auth.sign-in-failed', user!.id))?.details).toMatchObject({ reason: 'account_disabled' });
    const byEmail = await signIn({ claims: { ...who, sub: 'another-subject-' + randomBytes(4).toString('hex') } });
    expect(byEmail.location).toBe('/login?sso_error=account_disabled');
  });

  it('makes members of an admin group admins at each sign-in, from the ID token or from userinfo', async () => {
    const admin = person({ groups: [ADMIN_GROUP, 'staff'] });
    expect(await me(t, (await signIn({ claims: admin })).session)).toMatchObject({ role: 'admin' });

    // An existing user joins the group: promoted at their next sign-in, their open session too.
    const who = person({ groups: ['staff'] });
    const first = await signIn({ claims: who });
    expect(await me(t, first.session)).toMatchObject({ role: 'user' });
    const promoted = await signIn({ claims: { ...who, groups: [ADMIN_GROUP] } });
    expect(await me(t, promoted.session)).toMatchObject({ role: 'admin' });
    expect(await me(t, first.session)).toMatchObject({ role: 'admin' });
    const user = await me(t, promoted.session);
    expect((await lastAudit(t, 'user.update', user!.id))?.details).toMatchObject({ fields: ['role'], reason: 'oidc-admin-group' });
    expect((await lastAudit(t, 'auth.sign-in', user!.id))?.details).toMatchObject({ promoted: true });

    // Groups only in userinfo (many providers leave them out of the ID token).
    const viaUserinfo = person();
    expect(await me(t, (await signIn({ claims: viaUserinfo, userinfo: { groups: ADMIN_GROUP } })).session)).toMatchObject({ role: 'admin' });
    // Not a member: stays a user.
    expect(await me(t, (await signIn({ claims: person({ groups: ['staff'] }) })).session)).toMatchObject({ role: 'user' });
  });

  it('takes the admin role back from an admin the group made, at a sign-in outside the group; not from an admin made by hand', async () => {
    const who = person({ groups: [ADMIN_GROUP] });
    const first = await signIn({ claims: who });
    const user = (await me(t, first.session))!;
    expect(user.role).toBe('admin');

    // Removed from the group at the provider: a user again from the next sign-in, their open session too.
    const after = await signIn({ claims: { ...who, groups: ['staff'] } });
    expect(await me(t, after.session)).toMatchObject({ role: 'user' });
    expect(await me(t, first.session)).toMatchObject({ role: 'user' });
    expect((await lastAudit(t, 'user.update', user.id))?.details).toMatchObject({ fields: ['role'], role: 'user', reason: 'oidc-admin-group-left' });
    expect((await lastAudit(t, 'auth.sign-in', user.id))?.details).toMatchObject({ demoted: true });

    // An admin made by hand (here the group made them one, then an admin set the role) keeps it outside the group.
    await signIn({ claims: who });
    const admin = await t.signUp('admin');
    expect((await t.app.request(`/api/users/${user.id}`, { method: 'PATCH', headers: admin.headers, body: JSON.stringify({ role: 'admin' }) })).status).toBe(200);
    expect(await me(t, (await signIn({ claims: { ...who, groups: [] } })).session)).toMatchObject({ role: 'admin' });
    // As does a password account an admin made an admin, linked by its email.
    const byHand = await t.signUp('admin');
    expect(await me(t, (await signIn({ claims: person({ email: byHand.email }) })).session)).toMatchObject({ id: byHand.user.id, role: 'admin' });
  });

  it('keeps out a sign-up that waits for approval, as the password sign-in does', async () => {
    const who = person();
    await signUpUser(t.db, { email: who.email, name: 'Waiting', password: 'a long password' }, { awaitingApproval: true });
    const { location, session } = await signIn({ claims: who });
    expect(location).toBe('/login?sso_error=approval_pending');
    expect(session).toBeUndefined();
  });

  it('lands only on paths of this origin', async () => {
    for (const next of ['//evil.test/x', 'https://evil.test/', '/\\evil.test', 'javascript:alert(1)', '/login']) {
      expect((await signIn({ claims: person() }, { next })).location).toBe('/chat');
    }
    expect((await signIn({ claims: person() }, { next: '/admin/queues' })).location).toBe('/admin/queues');
  });

  it('gives accounts made by SSO no password: every password is refused like a wrong one, and changing it fails cleanly', async () => {
    const who = person();
    const { session } = await signIn({ claims: who });
    const wrong = await passwordLogin(t, (await t.signUp()).email, 'not the password');
    const wrongBody = (await wrong.json()) as { error: unknown };
    for (const password of ['!no-password', 'correct horse battery', '', ' ']) {
      const response = await passwordLogin(t, who.email, password || 'x');
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(wrongBody);
    }
    const change = await t.app.request('/api/auth/password', {
      method: 'POST',
      headers: { cookie: session!, 'content-type': 'application/json' },
      body: JSON.stringify({ currentPassword: '!no-password', newPassword: 'a new password' }),
    });
    expect(change.status).toBe(400);
    expect(await me(t, session)).toMatchObject({ hasPassword: false });
  });

  // Last in this block: it reads what every test above logged and audited.
  it('never logs or audits the client secret, a code or a state', async () => {
    expect(urlSecrets.size).toBeGreaterThan(20);
    expect(logLines.some((line) => line.includes('SSO sign-in failed'))).toBe(true);
    const audited = JSON.stringify(await t.db.select().from(auditEvents));
    for (const text of [logLines.join('\n'), audited]) {
      expect(text).not.toContain(provider.clientSecret);
      for (const secret of urlSecrets) expect(text).not.toContain(secret);
    }
  });
});

describe('single sign-on with an email domain list and without creating accounts', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await createTestApp({ oidc: settings({ autoCreateUsers: false, allowedEmailDomains: ['allowed.test'] }) });
    await redisReady(strict);
  });
  afterAll(() => strict?.close());

  it('refuses other domains, and people without an account; links those who have one', async () => {
    const outsider = person({ email: `someone-${randomBytes(3).toString('hex')}@elsewhere.test` });
    const refused = await signIn({ claims: outsider }, { app: strict });
    expect(refused.location).toBe('/login?sso_error=domain_not_allowed');
    expect((await lastAudit(strict, 'auth.sign-in-failed', outsider.email))?.details).toMatchObject({ method: 'oidc', reason: 'domain_not_allowed' });

    const stranger = person({ email: `new-${randomBytes(3).toString('hex')}@allowed.test` });
    expect((await signIn({ claims: stranger }, { app: strict })).location).toBe('/login?sso_error=account_not_found');
    expect(await strict.db.select().from(users).where(eq(users.email, stranger.email))).toEqual([]);

    const email = `member-${randomBytes(3).toString('hex')}@allowed.test`;
    await strict.db.insert(users).values({ id: `usr_${randomBytes(6).toString('hex')}`, email, name: 'Member', passwordHash: '!no-password' });
    const member = await signIn({ claims: person({ email }) }, { app: strict });
    expect(member.location).toBe('/chat');
    expect(await me(strict, member.session)).toMatchObject({ email });
  });
});
