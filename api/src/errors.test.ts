import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from './testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('error funnel', () => {
  it('malformed JSON is 400, not 500', async () => {
    const response = await t.app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email": ' });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/json/i);
  });

  it('a body of the wrong shape is 400 with zod issues', async () => {
    const response = await t.app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 42 }) });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.issues.length).toBeGreaterThan(0);
  });

  it('an unknown route is 404 JSON', async () => {
    const response = await t.app.request('/api/does-not-exist');
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('not_found');
  });

  it('an oversized body is 413', async () => {
    const big = JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(200 * 1024) });
    const response = await t.app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(big.length) }, body: big });
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('payload_too_large');
  });

  it('an oversized body without content-length (chunked) is 413 too', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (sent++ > 10) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await t.app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('a Redis outage makes /api/ready answer 503 instead of hanging', async () => {
    const down = await createTestApp({ redisUrl: 'redis://127.0.0.1:1' });
    try {
      const response = await down.app.request('/api/ready');
      expect(response.status).toBe(503);
      const body = await response.json();
      expect(body.checks.redis.ok).toBe(false);
      expect(body.checks.database.ok).toBe(true);
    } finally {
      await down.close();
    }
  });
});

describe('health', () => {
  it('/api/health and /api/ready answer 200 when PostgreSQL and Redis are up', async () => {
    expect((await t.app.request('/api/health')).status).toBe(200);
    const ready = await t.app.request('/api/ready');
    expect(ready.status).toBe(200);
    expect((await ready.json()).checks.redis.ok).toBe(true);
  });
});

describe('cross-site writes', () => {
  it('refuses a cookie-authenticated write from another origin and allows the same origin', async () => {
    const { cookie } = await t.signUp();
    const headers = { cookie, 'content-type': 'application/json', host: 'agentq.test' };
    const foreign = await t.app.request('http://agentq.test/api/auth/tokens', { method: 'POST', headers: { ...headers, origin: 'https://evil.example' }, body: JSON.stringify({ name: 'x' }) });
    expect(foreign.status).toBe(403);
    const same = await t.app.request('http://agentq.test/api/auth/tokens', { method: 'POST', headers: { ...headers, origin: 'http://agentq.test' }, body: JSON.stringify({ name: 'x' }) });
    expect(same.status).toBe(201);
  });
});
