import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { serve, type ServerType } from '@hono/node-server';
import { apiTokens, sessions, users } from '@agentq/shared/db';
import { createLogger } from '@agentq/shared/logger';
import { waitForRedis } from '@agentq/shared/redis';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';
import { trustedProxies } from './client-address';

/**
 * Issue 12 findings 1–3, 5, 7 and 9, the secrets at rest of docs/security.md, and a sweep of
 * malformed requests over every route, over real HTTP: the app served on a loopback port and called
 * with fetch, as an attacker's client would.
 */
const logLines: string[] = [];
const destination = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

let t: Awaited<ReturnType<typeof createTestApp>>;
let server: ServerType;
let base: string;
let admin: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  t = await createTestApp({
    // Sessions through the auth cache, as the API runtime reads them: revocation must hold there.
    configCache: true,
    logger: createLogger({ level: 'info', name: 'agentq-api', destination }),
    config: { loginThrottle: { maxPerAccount: 5, maxPerAddress: 12, windowSeconds: 120 } },
  });
  admin = await t.signUp('admin');
  server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

let addressCounter = 0;
/** A client address of its own per test (the loopback peer is a trusted proxy, so X-Forwarded-For counts). */
const freshAddress = () => `198.51.100.${++addressCounter}`;

function login(email: string, password: string, address: string) {
  return fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ email, password }),
  });
}

const cookieOf = (response: Response) => response.headers.get('set-cookie')?.split(';')[0] ?? '';

describe('login throttling (finding 1)', () => {
  it('refuses the account with 429 and Retry-After after repeated wrong passwords, even the right password', async () => {
    const victim = await t.signUp();
    const address = freshAddress();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 8; attempt++) statuses.push((await login(victim.email, `wrong-${attempt}`, address)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);

    const right = await login(victim.email, victim.password, address);
    expect(right.status).toBe(429);
    const retryAfter = Number(right.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);
    const body = await right.json();
    expect(body.error.code).toBe('too_many_attempts');
    expect(body.error.message).toMatch(/Too many failed sign-ins\. Try again in \d+ (seconds?|minutes?)\./);
    // Another address does not help: the account itself is locked.
    expect((await login(victim.email, victim.password, freshAddress())).status).toBe(429);
  });

  it('counts parallel guesses before checking them, so a burst cannot slip past the limit', async () => {
    const victim = await t.signUp();
    const address = freshAddress();
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, index) => login(victim.email, `parallel-${index}`, address).then((r) => r.status)));
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(35);
  });

  it('throttles one client address guessing across many accounts', async () => {
    const address = freshAddress();
    const statuses: number[] = [];
    for (let index = 0; index < 14; index++) statuses.push((await login(`nobody-${index}-${addressCounter}@test.local`, 'guess', address)).status);
    expect(statuses.slice(0, 12).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(12)).toEqual([429, 429]);
    // The same accounts from another address are only refused for the password.
    expect((await login(`nobody-0-${addressCounter}@test.local`, 'guess', freshAddress())).status).toBe(401);
  });

  it('ends the lockout with its window: the owner signs in afterwards (no permanent lock-out)', async () => {
    // An app of its own with a short window, so the test can wait it out.
    const short = await createTestApp({ config: { loginThrottle: { maxPerAccount: 1, maxPerAddress: 100, windowSeconds: 5 } } });
    try {
      const victim = await short.signUp();
      const attempt = (password: string) =>
        short.app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.250' }, body: JSON.stringify({ email: victim.email, password }) });
      expect((await attempt('wrong')).status).toBe(401);
      const locked = await attempt(victim.password);
      expect(locked.status).toBe(429);
      await new Promise((resolve) => setTimeout(resolve, Number(locked.headers.get('retry-after')) * 1000 + 300));
      expect((await attempt(victim.password)).status).toBe(200);
    } finally {
      await short.close();
    }
  });

  it('takes X-Forwarded-For only from TRUSTED_PROXIES: a peer outside them cannot dodge the address throttle by inventing addresses', async () => {
    const strict = await createTestApp({
      config: { loginThrottle: { maxPerAccount: 100, maxPerAddress: 3, windowSeconds: 120 }, trustedProxies: trustedProxies(['192.0.2.1/32']) },
    });
    const listener = serve({ fetch: strict.app.fetch, port: 0, hostname: '127.0.0.1' });
    try {
      await Promise.all([once(listener, 'listening'), waitForRedis(strict.redis)]);
      const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/api/auth/login`;
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 5; attempt++) {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': freshAddress() },
          body: JSON.stringify({ email: `nobody-${attempt}-${Date.now()}@test.local`, password: 'wrong' }),
        });
        statuses.push(response.status);
      }
      // Every attempt counts against 127.0.0.1, the real peer: the invented addresses are ignored.
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
      await strict.close();
    }
  });

  it('a successful sign-in forgives the account its earlier failures', async () => {
    const user = await t.signUp();
    const address = freshAddress();
    for (let attempt = 0; attempt < 4; attempt++) expect((await login(user.email, 'wrong', address)).status).toBe(401);
    expect((await login(user.email, user.password, address)).status).toBe(200);
    for (let attempt = 0; attempt < 4; attempt++) expect((await login(user.email, 'wrong', address)).status).toBe(401);
  });

  it('counts failures in /metrics and logs them without the password', async () => {
    const password = `hunter2-${Date.now()}`;
    await login(`metrics-${Date.now()}@test.local`, password, freshAddress());
    const metrics = await (await fetch(`${base}/metrics`, { headers: { cookie: admin.cookie } })).text();
    const failures = Number(/agentq_login_failures_total\{reason="invalid_credentials"\} (\d+)/.exec(metrics)?.[1]);
    const throttled = Number(/agentq_login_failures_total\{reason="throttled"\} (\d+)/.exec(metrics)?.[1]);
    expect(failures).toBeGreaterThanOrEqual(20);
    expect(throttled).toBeGreaterThanOrEqual(35);
    const joined = logLines.join('\n');
    expect(joined).toContain('sign-in failed: wrong email or password');
    expect(joined).toContain('sign-in throttled');
    expect(joined).not.toContain(password);
    expect(joined).not.toContain('parallel-1');
  });
});

describe('CSRF: the same-origin guard follows the credential (finding 2)', () => {
  it('refuses a cross-site cookie write whatever Authorization header rides along', async () => {
    const user = await t.signUp();
    for (const authorization of [undefined, 'Basic YTpi', 'Digest username="a"', 'Bearer', 'bearer']) {
      const response = await fetch(`${base}/api/sessions`, {
        method: 'POST',
        headers: { cookie: user.cookie, 'content-type': 'application/json', origin: 'http://evil.example', ...(authorization && { authorization }) },
        body: JSON.stringify({}),
      });
      expect(response.status, `Authorization: ${authorization}`).toBe(403);
      expect((await response.json()).error.code).toBe('cross_origin');
    }
  });

  it('refuses cross-site writes that carry no Origin but Sec-Fetch-Site, and sign-in from another site (login CSRF)', async () => {
    const user = await t.signUp();
    const fetchMeta = await fetch(`${base}/api/sessions`, {
      method: 'POST',
      headers: { cookie: user.cookie, 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
      body: '{}',
    });
    expect(fetchMeta.status).toBe(403);
    const signIn = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example', 'x-forwarded-for': freshAddress() },
      body: JSON.stringify({ email: user.email, password: user.password }),
    });
    expect(signIn.status).toBe(403);
    const nullOrigin = await fetch(`${base}/api/sessions`, { method: 'POST', headers: { cookie: user.cookie, 'content-type': 'application/json', origin: 'null' }, body: '{}' });
    expect(nullOrigin.status).toBe(403);
  });

  it('allows the same origin, and judges a Bearer request by its token only (the cookie is ignored)', async () => {
    const user = await t.signUp();
    const host = new URL(base).host;
    const same = await fetch(`${base}/api/sessions`, { method: 'POST', headers: { cookie: user.cookie, 'content-type': 'application/json', origin: `http://${host}` }, body: '{}' });
    expect(same.status).toBe(201);

    const token = (await (await fetch(`${base}/api/auth/tokens`, { method: 'POST', headers: { cookie: user.cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'cli' }) })).json()).token as string;
    const byToken = await fetch(`${base}/api/sessions`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: 'http://evil.example' }, body: '{}' });
    expect(byToken.status).toBe(201);
    // A bad token with a good cookie is not authenticated by the cookie.
    const badToken = await fetch(`${base}/api/auth/me`, { headers: { authorization: 'Bearer aq_not-a-token', cookie: user.cookie } });
    expect(badToken.status).toBe(401);
    const badTokenWrite = await fetch(`${base}/api/sessions`, { method: 'POST', headers: { authorization: 'Bearer aq_not-a-token', cookie: user.cookie, 'content-type': 'application/json' }, body: '{}' });
    expect(badTokenWrite.status).toBe(401);
  });
});

describe('revoking credentials (finding 3)', () => {
  async function tokenFor(cookie: string) {
    const response = await fetch(`${base}/api/auth/tokens`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'script' }) });
    return ((await response.json()) as { token: string }).token;
  }
  const me = (headers: Record<string, string>) => fetch(`${base}/api/auth/me`, { headers }).then((response) => response.status);

  it('an admin password reset ends every session and API token of the user', async () => {
    const user = await t.signUp();
    const token = await tokenFor(user.cookie);
    expect(await me({ authorization: `Bearer ${token}` })).toBe(200);
    const reset = await fetch(`${base}/api/users/${user.user.id}`, { method: 'PATCH', headers: admin.headers, body: JSON.stringify({ password: 'a-brand-new-password' }) });
    expect(reset.status).toBe(200);
    expect(await me({ authorization: `Bearer ${token}` })).toBe(401);
    expect(await me({ cookie: user.cookie })).toBe(401);
    expect((await login(user.email, user.password, freshAddress())).status).toBe(401);
    expect((await login(user.email, 'a-brand-new-password', freshAddress())).status).toBe(200);
  });

  it("an admin resetting their own password keeps the session that made it and ends the admin's other sessions and tokens", async () => {
    const other = await t.signUp('admin');
    const elsewhere = cookieOf(await login(other.email, other.password, freshAddress()));
    const token = await tokenFor(other.cookie);
    const reset = await fetch(`${base}/api/users/${other.user.id}`, { method: 'PATCH', headers: other.headers, body: JSON.stringify({ password: 'a-brand-new-password' }) });
    expect(reset.status).toBe(200);
    expect(await me({ cookie: other.cookie })).toBe(200);
    expect(await me({ cookie: elsewhere })).toBe(401);
    expect(await me({ authorization: `Bearer ${token}` })).toBe(401);
    expect((await login(other.email, 'a-brand-new-password', freshAddress())).status).toBe(200);
  });

  it('a self-service change keeps the session that made it and ends every other session and token', async () => {
    const user = await t.signUp();
    const other = cookieOf(await login(user.email, user.password, freshAddress()));
    const token = await tokenFor(user.cookie);
    const wrong = await fetch(`${base}/api/auth/password`, { method: 'POST', headers: user.headers, body: JSON.stringify({ currentPassword: 'nope', newPassword: 'another-password-1' }) });
    expect(wrong.status).toBe(400);
    expect(await me({ authorization: `Bearer ${token}` })).toBe(200);

    const change = await fetch(`${base}/api/auth/password`, { method: 'POST', headers: user.headers, body: JSON.stringify({ currentPassword: user.password, newPassword: 'another-password-1' }) });
    expect(change.status).toBe(200);
    expect((await change.json()).revoked).toEqual({ sessions: 1, apiTokens: 1 });
    expect(await me({ cookie: user.cookie })).toBe(200);
    expect(await me({ cookie: other })).toBe(401);
    expect(await me({ authorization: `Bearer ${token}` })).toBe(401);
  });

  it('disabling a user ends their sessions and tokens and refuses sign-in until re-enabled', async () => {
    const user = await t.signUp();
    const token = await tokenFor(user.cookie);
    const disable = await fetch(`${base}/api/users/${user.user.id}`, { method: 'PATCH', headers: admin.headers, body: JSON.stringify({ disabled: true }) });
    expect(disable.status).toBe(200);
    expect((await disable.json()).disabled).toBe(true);
    expect(await me({ cookie: user.cookie })).toBe(401);
    expect(await me({ authorization: `Bearer ${token}` })).toBe(401);
    expect((await login(user.email, user.password, freshAddress())).status).toBe(401);

    await fetch(`${base}/api/users/${user.user.id}`, { method: 'PATCH', headers: admin.headers, body: JSON.stringify({ disabled: false }) });
    expect((await login(user.email, user.password, freshAddress())).status).toBe(200);
    const self = await fetch(`${base}/api/users/${admin.user.id}`, { method: 'PATCH', headers: admin.headers, body: JSON.stringify({ disabled: true }) });
    expect(self.status).toBe(409);
  });
});

describe('JSON bodies (finding 5)', () => {
  const nested = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);

  it('refuses deep nesting with 400 and a clear message, on every route', async () => {
    for (const path of ['/api/approvals/approval_x', '/api/sessions', '/api/agent-tools/tool_x/execute']) {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: admin.headers,
        body: `{"decision":"approve","input":${nested(6000)}}`,
      });
      expect(response.status, path).toBe(400);
      const body = await response.json();
      expect(body.error.code).toBe('json_too_deep');
      expect(body.error.message).toMatch(/deeper than 64 levels/);
    }
  });

  it('accepts nesting up to the limit and reads brackets inside strings as text', async () => {
    const response = await fetch(`${base}/api/sessions`, { method: 'POST', headers: admin.headers, body: JSON.stringify({ title: '[[[[{{{{'.repeat(12) }) });
    expect(response.status).toBe(201);
  });

  it('malformed JSON is 400 and an oversized body 413, both with a message', async () => {
    const malformed = await fetch(`${base}/api/sessions`, { method: 'POST', headers: admin.headers, body: '{"title": ' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe('invalid_json');
    const big = await fetch(`${base}/api/sessions`, { method: 'POST', headers: admin.headers, body: JSON.stringify({ title: 'x'.repeat(100 * 1024) }) });
    expect(big.status).toBe(413);
    expect((await big.json()).error.message).toMatch(/exceeds 65536 bytes/);
  });

  it("the queue board's endpoints (served by the API) get the same limits, and nothing reaches the queue", async () => {
    const add = `${base}/admin/queues/api/queues/chat-turns/add`;
    const deep = await fetch(add, { method: 'POST', headers: admin.headers, body: `{"name":"x","data":${nested(6000)}}` });
    expect(deep.status).toBe(400);
    expect((await deep.json()).error.code).toBe('json_too_deep');
    const big = await fetch(add, { method: 'POST', headers: admin.headers, body: JSON.stringify({ name: 'x', data: { text: 'x'.repeat(100 * 1024) } }) });
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('payload_too_large');
    const board = await (await fetch(`${base}/admin/queues/api/queues`, { headers: { cookie: admin.cookie } })).json();
    const chatTurns = board.queues.find((queue: { name: string }) => queue.name === 'chat-turns');
    expect(Object.values(chatTurns.counts as Record<string, number>).every((count) => count === 0)).toBe(true);
    // A body within the limits still reaches bull-board, parsed once by our parser.
    const small = await fetch(add, { method: 'POST', headers: admin.headers, body: JSON.stringify({ name: 'by-hand', data: { note: 'ok' } }) });
    expect(small.status).toBe(200);
    const [job] = await t.queues.chatTurns.getJobs(['waiting']);
    expect(job).toMatchObject({ name: 'by-hand', data: { note: 'ok' } });
    await job!.remove();
  });
});

describe('jsonb is written from the validated value (finding 5)', () => {
  it('an approval edited with unknown keys stores only what the tool input schema keeps', async () => {
    const { createApproval, createToolRun } = await import('@agentq/shared/services');
    const tool = await (await fetch(`${base}/api/agent-tools`, { method: 'POST', headers: admin.headers, body: JSON.stringify({ name: 'Calc', slug: `calc_e_${Date.now()}`, type: 'calculator' }) })).json();
    const run = await createToolRun(t.db, { userId: admin.user.id, toolId: tool.id, input: {} });
    const approval = await createApproval(t.db, {
      runId: run.id,
      userId: admin.user.id,
      toolCallId: 'call_1',
      toolId: tool.id,
      toolName: tool.slug,
      input: { expression: '1+1' },
      expiresAt: new Date(Date.now() + 60_000),
    });
    const deep = '['.repeat(50) + ']'.repeat(50);
    const response = await fetch(`${base}/api/approvals/${approval.id}`, {
      method: 'POST',
      headers: admin.headers,
      body: `{"decision":"approve","input":{"expression":"2+2","smuggled":${deep}}}`,
    });
    expect(response.status).toBe(200);
    expect((await response.json()).editedInput).toEqual({ expression: '2+2' });
  });
});

describe('Last-Event-ID (finding 7)', () => {
  it('answers 400 for anything but a sequence number we could have issued', async () => {
    // A run of our own to point at: a tool run is the cheapest to create.
    const tool = await (await fetch(`${base}/api/agent-tools`, { method: 'POST', headers: admin.headers, body: JSON.stringify({ name: 'Calc', slug: `calc_${Date.now()}`, type: 'calculator' }) })).json();
    const execution = await (await fetch(`${base}/api/agent-tools/${tool.id}/execute?async=1`, { method: 'POST', headers: admin.headers, body: JSON.stringify({ input: { expression: '1+1' } }) })).json();
    for (const bad of ['99999999999999999999999', '-1', '1e3', '12abc', '0x10', '9007199254740993']) {
      const response = await fetch(`${base}/api/runs/${execution.runId}/events`, { headers: { cookie: admin.cookie, 'last-event-id': bad } });
      expect(response.status, bad).toBe(400);
      expect((await response.json()).error.code).toBe('invalid_last_event_id');
    }
    const query = await fetch(`${base}/api/runs/${execution.runId}/events?lastEventId=abc`, { headers: { cookie: admin.cookie } });
    expect(query.status).toBe(400);
  });
});

describe('admin execute of a call that needs approval (finding 9)', () => {
  it('is refused without confirm: true, runs with it, and the confirmation is audited with who gave it', async () => {
    const tool = await (
      await fetch(`${base}/api/agent-tools`, {
        method: 'POST',
        headers: admin.headers,
        body: JSON.stringify({ name: 'Docs', slug: `docs_${Date.now()}`, type: 'document' }),
      })
    ).json();
    const unconfirmed = await fetch(`${base}/api/agent-tools/${tool.id}/execute?async=1`, {
      method: 'POST',
      headers: admin.headers,
      body: JSON.stringify({ input: { action: 'delete', id: 'doc_missing' } }),
    });
    expect(unconfirmed.status).toBe(409);
    const refusal = await unconfirmed.json();
    expect(refusal.error.code).toBe('confirmation_required');
    expect(refusal.error.message).toMatch(/confirm/i);

    // A call that needs no approval runs without confirming.
    const read = await fetch(`${base}/api/agent-tools/${tool.id}/execute?async=1`, { method: 'POST', headers: admin.headers, body: JSON.stringify({ input: { action: 'list' } }) });
    expect(read.status).toBe(202);

    const confirmed = await fetch(`${base}/api/agent-tools/${tool.id}/execute?async=1`, {
      method: 'POST',
      headers: admin.headers,
      body: JSON.stringify({ input: { action: 'delete', id: 'doc_missing' }, confirm: true }),
    });
    expect(confirmed.status).toBe(202);
    const { runId } = await confirmed.json();
    const { auditEvents } = await import('@agentq/shared/db');
    const { eq } = await import('drizzle-orm');
    const { and } = await import('drizzle-orm');
    const audits = await t.db.select().from(auditEvents).where(and(eq(auditEvents.targetId, tool.id), eq(auditEvents.action, 'tool.execute-confirmed')));
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ actorUserId: admin.user.id, details: { runId } });
  });
});

describe('security headers on API responses', () => {
  it('every response, JSON and error alike, forbids framing and sniffing', async () => {
    for (const path of ['/api/health', '/api/does-not-exist', '/api/auth/me', '/api/openapi.json']) {
      const response = await fetch(`${base}${path}`);
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('same-origin');
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('strict-transport-security')).toBeNull();
    }
  });

  it('the docs page gets a policy that allows its own inline scripts by hash, never unsafe-inline scripts', async () => {
    const response = await fetch(`${base}/api/docs`);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+/);
    expect(/script-src[^;]*unsafe-inline/.test(csp)).toBe(false);
  });

  it('sends HSTS when the public origin is https', async () => {
    const secure = await createTestApp({ config: { publicOrigin: 'https://agentq.example', secureCookies: true } });
    try {
      const response = await secure.app.request('/api/health');
      expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await secure.close();
    }
  });
});

describe('secrets at rest', () => {
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  it('stores a password as a salted scrypt hash and session and API token secrets as their sha256 only', async () => {
    const user = await t.signUp();
    const sessionToken = decodeURIComponent(user.cookie.slice(user.cookie.indexOf('=') + 1));
    const created = await fetch(`${base}/api/auth/tokens`, { method: 'POST', headers: user.headers, body: JSON.stringify({ name: 'at-rest' }) });
    const { token } = (await created.json()) as { token: string };

    const [row] = await t.db.select().from(users).where(eq(users.id, user.user.id));
    expect(row!.passwordHash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(row!.passwordHash).not.toContain(user.password);
    // Another user with the same password gets another hash (a fresh salt).
    const twin = await t.signUp();
    const [twinRow] = await t.db.select().from(users).where(eq(users.id, twin.user.id));
    expect(twinRow!.passwordHash).not.toBe(row!.passwordHash);

    const sessionRows = await t.db.select().from(sessions).where(eq(sessions.userId, user.user.id));
    expect(sessionRows.map((session) => session.tokenHash)).toEqual([sha256(sessionToken)]);
    expect(JSON.stringify(sessionRows)).not.toContain(sessionToken);

    const tokenRows = await t.db.select().from(apiTokens).where(eq(apiTokens.userId, user.user.id));
    expect(tokenRows.map((tokenRow) => tokenRow.tokenHash)).toEqual([sha256(token)]);
    expect(JSON.stringify(tokenRows)).not.toContain(token);
    // Shown once: the list never carries the secret.
    expect(await (await fetch(`${base}/api/auth/tokens`, { headers: { cookie: user.cookie } })).text()).not.toContain(token);
  });
});

describe('malformed requests (held before issue 12: no 500)', () => {
  it('no API route answers 5xx to malformed or ill-shaped bodies, odd ids or odd query strings', async () => {
    // Every API route the app serves (sign-out aside: it reads no body, and any parsable one would
    // end the session this sweep uses).
    const routes = [...new Set(t.app.routes.filter((route) => route.path.startsWith('/api/') && route.method !== 'ALL').map((route) => `${route.method} ${route.path}`))]
      .filter((route) => !route.startsWith('GET /api/docs') && route !== 'POST /api/auth/logout');
    expect(routes.length).toBeGreaterThan(40);
    const ids = ['x', `run_${'z'.repeat(300)}`, '%00', '..%2F..%2Fetc', '%F0%9F%92%A5', "1'%20or%20'1'='1"];
    const bodies = [
      '{"a":',
      `${'['.repeat(100)}${']'.repeat(100)}`,
      '[]',
      '"text"',
      'null',
      '12345678901234567890',
      '{"__proto__":{"role":"admin"},"constructor":{"prototype":{"role":"admin"}}}',
      '{"input":{"a":{"b":[1,{"c":null}]}},"name":["not","a","string"],"id":{"$ne":null},"limit":-1,"decision":7}',
      // NUL and a lone surrogate in every text field a route might store (PostgreSQL refuses NUL in text).
      '{"name":"a\\u0000b","title":"a\\u0000b","content":"a\\u0000b\\ud800","question":"\\u0000","slug":"a\\u0000","reason":"\\u0000","email":"a\\u0000@b.c","password":"pass\\u0000word-long"}',
      `{"title":"${'x'.repeat(20_000)}","content":"${'x'.repeat(20_000)}"}`,
    ];
    const query = `?limit=-5&cursor=%FF%FE&status=__proto__&runId[]=1&q=${encodeURIComponent(`"'%_*`)}`;
    const failures: string[] = [];
    let sent = 0;
    for (const route of routes) {
      const [method, template] = route.split(' ') as [string, string];
      for (const id of template.includes(':') ? ids : ['']) {
        const path = template.replace(/:\w+(\{[^}]*\})?/g, id);
        for (const body of method === 'GET' ? [undefined] : bodies) {
          const response = await fetch(`${base}${path}${query}`, { method, headers: admin.headers, body });
          sent++;
          if (response.status >= 500) failures.push(`${method} ${path} ${String(body).slice(0, 40)} → ${response.status} ${(await response.text()).slice(0, 200)}`);
          else await response.body?.cancel();
        }
      }
    }
    expect(sent).toBeGreaterThan(1000);
    expect(failures).toEqual([]);
  }, 300_000);
});
