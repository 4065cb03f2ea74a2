import { Writable } from 'node:stream';
import { createLogger } from '@agentq/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

const lines: Record<string, unknown>[] = [];
const raw: string[] = [];
const destination = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) {
      raw.push(line);
      lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    done();
  },
});

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;

beforeAll(async () => {
  t = await createTestApp({ logger: createLogger({ level: 'info', name: 'agentq-api', destination }) });
  admin = await t.signUp('admin');
});

afterAll(async () => {
  await t.close();
});

describe('request logs', () => {
  it('logs every request once with method, route pattern, status, duration and request id, echoed in x-request-id', async () => {
    const response = await t.app.request('/api/runs/run_missing', { headers: admin.headers });
    expect(response.status).toBe(404);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const line = lines.find((entry) => entry.requestId === requestId);
    expect(line).toMatchObject({ msg: 'request', method: 'GET', route: '/api/runs/:id', path: '/api/runs/run_missing', status: 404, userId: admin.user.id, name: 'agentq-api' });
    expect(line!.durationMs).toBeTypeOf('number');
  });

  it("keeps a caller's request id, but not one that could forge log content", async () => {
    const kept = await t.app.request('/api/health', { headers: { 'x-request-id': 'trace-123.abc' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123.abc');
    const replaced = await t.app.request('/api/health', { headers: { 'x-request-id': 'evil" injected {' } });
    expect(replaced.headers.get('x-request-id')).not.toContain('evil');
  });

  it('never logs the credentials a request carried', async () => {
    const token = 'aq_never_logged_0123456789';
    await t.app.request('/api/auth/me', { headers: { authorization: `Bearer ${token}` } });
    await t.app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'x@test.local', password: 'never-logged-password' }) });
    expect(raw.join('\n')).not.toContain(token);
    expect(raw.join('\n')).not.toContain('never-logged-password');
    expect(raw.join('\n')).not.toContain(admin.cookie.split('=')[1]!);
  });
});
