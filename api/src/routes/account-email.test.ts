import { auditEvents, emailTokens, users } from '@agentq/shared/db';
import { createUser, NO_PASSWORD_HASH, updateUser } from '@agentq/shared/services';
import { uniqueEmail } from '@agentq/shared/testing';
import { startTestSmtpServer, tokenInEmail, type ReceivedEmail } from '@agentq/shared/testing/smtp-server';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Smtp = Awaited<ReturnType<typeof startTestSmtpServer>>;
type Worker = Awaited<ReturnType<TestApp['startWorker']>>;

const PUBLIC_ORIGIN = 'http://127.0.0.1:5999';
const SMTP_USER = 'mailer';
const SMTP_PASSWORD = 'smtp-secret-password-9f3a';
let t: TestApp;
let plain: TestApp;
let smtp: Smtp;
let worker: Worker;
let clients = 0;

beforeAll(async () => {
  smtp = await startTestSmtpServer({ user: SMTP_USER, pass: SMTP_PASSWORD });
  [t, plain] = await Promise.all([
    createTestApp({
      config: {
        signUp: { mode: 'open', emailDomains: [] },
        email: { verifySignUps: true, rateLimits: { perAddress: { max: 3, windowSeconds: 3600 }, perClient: { max: 4, windowSeconds: 3600 } } },
      },
    }),
    createTestApp({ config: { signUp: { mode: 'open', emailDomains: [] } } }),
  ]);
  worker = await t.startWorker({ SMTP_URL: smtp.url, SMTP_FROM: 'agentq <noreply@agentq.test>', PUBLIC_ORIGIN });
}, 60_000);
afterAll(async () => {
  await worker?.stop();
  await Promise.all([t?.close(), plain?.close(), smtp?.close()]);
});

/** Each test speaks from a client address of its own, so the per-client limit counts only its requests. */
function newClient(): Record<string, string> {
  clients += 1;
  return { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${clients}` };
}
const post = (app: TestApp, path: string, body: unknown, headers: Record<string, string> = newClient()) =>
  app.app.request(path, { method: 'POST', headers, body: JSON.stringify(body) });
const logIn = (email: string, password: string) => post(t, '/api/auth/login', { email, password });
const cookieOf = (response: Response) => response.headers.get('set-cookie')?.split(';')[0] ?? '';
const mailTo = (address: string, count = 1) => smtp.waitFor((email) => email.to.includes(address) && smtp.to(address).length >= count).then(() => smtp.to(address));

/** The outcome the worker recorded for the latest email job to `address` (jobs carry no secret, only the address). */
async function outcomeFor(address: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const jobs = await t.queues.accountEmails.getJobs(['completed', 'failed']);
    const job = jobs.find((candidate) => candidate.data.email === address);
    if (job?.returnvalue) return (job.returnvalue as { outcome: string }).outcome;
    if (Date.now() > deadline) throw new Error(`no finished email job for ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function person(overrides: { locale?: 'zh' } = {}) {
  const email = uniqueEmail('reset');
  const password = 'the old password';
  const user = await createUser(t.db, { email, name: 'Ada Lovelace', password, role: 'user' });
  if (overrides.locale) await t.db.update(users).set({ locale: overrides.locale }).where(eq(users.id, user.id));
  return { user, email, password };
}

describe('forgot password', () => {
  it('is off without SMTP: the sign-in page offers no link and the endpoints answer 404', async () => {
    expect(await (await plain.app.request('/api/auth/providers')).json()).toMatchObject({ passwordReset: false, emailVerification: false });
    const refused = await post(plain, '/api/auth/password-reset/request', { email: 'someone@example.com' });
    expect(refused.status).toBe(404);
    expect((await refused.json()).error.code).toBe('email_not_configured');
    expect(await (await t.app.request('/api/auth/providers')).json()).toMatchObject({ passwordReset: true, emailVerification: true });
  });

  it('mails a single-use link that sets a new password, signs out every session and API token, and is audited', async () => {
    const { user, email, password } = await person();
    const first = cookieOf(await logIn(email, password));
    const second = cookieOf(await logIn(email, password));
    const token = await (await t.app.request('/api/auth/tokens', { method: 'POST', headers: { cookie: first, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'script' }) })).json();
    expect((await t.app.request('/api/auth/me', { headers: { cookie: second } })).status).toBe(200);

    const asked = await post(t, '/api/auth/password-reset/request', { email: email.toUpperCase() });
    expect(asked.status).toBe(202);
    const [mail] = (await mailTo(email)) as [ReceivedEmail];
    expect(mail.from).toBe('noreply@agentq.test');
    expect(mail.subject).toBe('Reset your agentq password');
    expect(mail.text).toContain('Hello Ada Lovelace,');
    expect(mail.text).toContain(`${PUBLIC_ORIGIN}/reset-password#token=`);
    expect(mail.html).toContain(`href="${PUBLIC_ORIGIN}/reset-password#token=`);
    const secret = tokenInEmail(mail);
    // Only the hash is stored.
    const [stored] = await t.db.select().from(emailTokens).where(eq(emailTokens.userId, user.id));
    expect(stored!.tokenHash).not.toContain(secret);
    expect(JSON.stringify(await t.queues.accountEmails.getJobs(['completed']))).not.toContain(secret);

    const weak = await post(t, '/api/auth/password-reset', { token: secret, password: 'short' });
    expect(weak.status).toBe(400);
    expect((await weak.json()).error.issues[0].path).toEqual(['password']);

    const reset = await post(t, '/api/auth/password-reset', { token: secret, password: 'a brand new password' });
    expect(reset.status).toBe(204);
    for (const cookie of [first, second]) expect((await t.app.request('/api/auth/me', { headers: { cookie } })).status).toBe(401);
    expect((await t.app.request('/api/auth/me', { headers: { authorization: `Bearer ${token.token}` } })).status).toBe(401);
    expect((await logIn(email, password)).status).toBe(401);
    expect((await logIn(email, 'a brand new password')).status).toBe(200);

    // Single use.
    const again = await post(t, '/api/auth/password-reset', { token: secret, password: 'yet another password' });
    expect(again.status).toBe(400);
    expect((await again.json()).error.code).toBe('invalid_link');
    expect((await logIn(email, 'a brand new password')).status).toBe(200);

    const [audited] = await t.db.select().from(auditEvents).where(and(eq(auditEvents.targetId, user.id), eq(auditEvents.action, 'user.password-reset'))).orderBy(desc(auditEvents.createdAt));
    expect(audited).toMatchObject({ actorUserId: user.id, details: { method: 'email-link', revoked: { sessions: 2, apiTokens: 1 } } });
  });

  it('a newer email replaces the older link, and a link expires after an hour', async () => {
    const { user, email } = await person({ locale: 'zh' });
    const headers = newClient();
    expect((await post(t, '/api/auth/password-reset/request', { email }, headers)).status).toBe(202);
    const [older] = (await mailTo(email, 1)) as [ReceivedEmail];
    expect(older.subject).toBe('重置您的 agentq 密码');
    expect(older.text).toContain('Ada Lovelace，您好');
    expect((await post(t, '/api/auth/password-reset/request', { email }, headers)).status).toBe(202);
    const [, newer] = (await mailTo(email, 2)) as [ReceivedEmail, ReceivedEmail];
    expect(tokenInEmail(newer)).not.toBe(tokenInEmail(older));

    const stale = await post(t, '/api/auth/password-reset', { token: tokenInEmail(older), password: 'a brand new password' });
    expect(stale.status).toBe(400);
    expect((await stale.json()).error.code).toBe('invalid_link');

    // An hour later (the row's expiry moved into the past), the newer link is dead too.
    await t.db.update(emailTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(emailTokens.userId, user.id));
    const expired = await post(t, '/api/auth/password-reset', { token: tokenInEmail(newer), password: 'a brand new password' });
    expect(expired.status).toBe(400);
    expect((await expired.json()).error.code).toBe('invalid_link');
    const [row] = await t.db.select({ usedAt: emailTokens.usedAt, expiresAt: emailTokens.expiresAt, createdAt: emailTokens.createdAt }).from(emailTokens).where(eq(emailTokens.userId, user.id));
    expect(row!.usedAt).toBeNull();
  });

  it('a link mailed before the account was disabled does not work, and leaves the password as it was', async () => {
    const admin = await createUser(t.db, { email: uniqueEmail('admin'), name: 'Admin', password: 'admin password', role: 'admin' });
    const { user, email } = await person();
    expect((await post(t, '/api/auth/password-reset/request', { email })).status).toBe(202);
    const [mail] = (await mailTo(email)) as [ReceivedEmail];
    await updateUser(t.db, user.id, { disabled: true }, admin.id);
    const refused = await post(t, '/api/auth/password-reset', { token: tokenInEmail(mail), password: 'a brand new password' });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.code).toBe('invalid_link');
    await updateUser(t.db, user.id, { disabled: false }, admin.id);
    expect((await logIn(email, 'the old password')).status).toBe(200);
  });

  it('answers the same for unknown, single sign-on-only and disabled accounts, and emails none of them', async () => {
    const admin = await createUser(t.db, { email: uniqueEmail('admin'), name: 'Admin', password: 'admin password', role: 'admin' });
    const unknown = uniqueEmail('nobody');
    const sso = await person();
    await t.db.update(users).set({ passwordHash: NO_PASSWORD_HASH }).where(eq(users.id, sso.user.id));
    const disabled = await person();
    await updateUser(t.db, disabled.user.id, { disabled: true }, admin.id);
    const known = await person();

    const answers = [];
    for (const email of [unknown, sso.email, disabled.email, known.email]) {
      const response = await post(t, '/api/auth/password-reset/request', { email });
      answers.push({ status: response.status, body: await response.json() });
    }
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]).toEqual({ status: 202, body: { accepted: true } });

    expect(await outcomeFor(unknown)).toBe('no-account');
    expect(await outcomeFor(sso.email)).toBe('no-password');
    expect(await outcomeFor(disabled.email)).toBe('disabled');
    expect(await outcomeFor(known.email)).toBe('sent');
    await mailTo(known.email);
    for (const email of [unknown, sso.email, disabled.email]) expect(smtp.to(email)).toEqual([]);
  });

  it('is rate limited per address (known or not alike) and per client address', async () => {
    const { email } = await person();
    const unknown = uniqueEmail('nobody');
    for (const address of [email, unknown]) {
      for (let index = 0; index < 3; index += 1) expect((await post(t, '/api/auth/password-reset/request', { email: address })).status).toBe(202);
      const limited = await post(t, '/api/auth/password-reset/request', { email: address });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await limited.json()).error.code).toBe('rate_limited');
    }
    // One client naming a new address each time.
    const headers = newClient();
    for (let index = 0; index < 4; index += 1) expect((await post(t, '/api/auth/password-reset/request', { email: uniqueEmail('spray') }, headers)).status).toBe(202);
    expect((await post(t, '/api/auth/password-reset/request', { email: uniqueEmail('spray') }, headers)).status).toBe(429);
    // Bad input is a 400, not a 500.
    expect((await post(t, '/api/auth/password-reset/request', { email: 'not an address' })).status).toBe(400);
    expect((await post(t, '/api/auth/password-reset', { token: 'short', password: 'a long password' })).status).toBe(400);
  });
});

describe('sign-up email verification', () => {
  it('keeps a new account out until it follows the emailed link; it can ask again; an admin can mark it verified', async () => {
    const email = uniqueEmail('verify');
    const password = 'a long password';
    const made = await post(t, '/api/auth/sign-up', { email, name: 'Grace Hopper', password });
    expect(made.status).toBe(202);
    const body = await made.json();
    expect(body).toMatchObject({ awaitingEmailVerification: true, user: { emailVerified: false } });
    expect(made.headers.get('set-cookie')).toBeNull();

    const refused = await logIn(email, password);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('email_unverified');
    // A wrong password still says only that.
    expect((await logIn(email, 'the wrong password')).status).toBe(401);

    const [first] = (await mailTo(email)) as [ReceivedEmail];
    expect(first.subject).toBe('Confirm your email for agentq');
    expect(first.text).toContain(`${PUBLIC_ORIGIN}/verify-email#token=`);
    expect((await post(t, '/api/auth/email-verification/resend', { email })).status).toBe(202);
    const [, second] = (await mailTo(email, 2)) as [ReceivedEmail, ReceivedEmail];
    expect((await post(t, '/api/auth/email-verification', { token: tokenInEmail(first) })).status).toBe(400);
    expect((await post(t, '/api/auth/email-verification', { token: tokenInEmail(second) })).status).toBe(204);
    expect((await post(t, '/api/auth/email-verification', { token: tokenInEmail(second) })).status).toBe(400);
    expect((await logIn(email, password)).status).toBe(200);

    // Verified accounts get no more verification emails (the same 202).
    expect((await post(t, '/api/auth/email-verification/resend', { email })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Another sign-up, verified by an admin instead (Admin → Users lists it as unverified until then).
    const other = uniqueEmail('verify');
    const signedUp = await (await post(t, '/api/auth/sign-up', { email: other, name: 'Unverified', password })).json();
    const admin = await t.signUp('admin');
    const listed = await (await t.app.request(`/api/users?emailVerified=false&q=${encodeURIComponent(other)}`, { headers: admin.headers })).json();
    expect(listed.items.map((item: { id: string; emailVerified: boolean }) => [item.id, item.emailVerified])).toEqual([[signedUp.user.id, false]]);
    const marked = await t.app.request(`/api/users/${signedUp.user.id}`, { method: 'PATCH', headers: admin.headers, body: JSON.stringify({ emailVerified: true }) });
    expect(marked.status).toBe(200);
    expect((await marked.json()).emailVerified).toBe(true);
    expect((await logIn(other, password)).status).toBe(200);
    const [audited] = await t.db.select().from(auditEvents).where(and(eq(auditEvents.targetId, signedUp.user.id), eq(auditEvents.action, 'user.update')));
    expect(audited!.details).toMatchObject({ fields: ['emailVerified'] });
  });

  it('admin-created accounts and sign-ups without the requirement count as verified', async () => {
    const admin = await t.signUp('admin');
    expect(admin.user.emailVerified).toBe(true);
    const made = await post(plain, '/api/auth/sign-up', { email: uniqueEmail('open'), name: 'Open', password: 'a long password' });
    expect(made.status).toBe(201);
    expect((await made.json()).user.emailVerified).toBe(true);
  });
});

it('the worker logs no secret: neither the SMTP password nor a link', () => {
  const log = worker.output();
  expect(log).toContain('account email');
  expect(log).not.toContain(SMTP_PASSWORD);
  expect(log).not.toContain('#token=');
  for (const email of smtp.received) expect(log).not.toContain(tokenInEmail(email));
});
