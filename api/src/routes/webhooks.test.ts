import { Writable } from 'node:stream';
import { auditEvents, webhookDeliveries, webhookEndpoints } from '@agentq/shared/db';
import { createLogger } from '@agentq/shared/logger';
import { decryptSecret, encryptSecret } from '@agentq/shared/services';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_APP_SECRET } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
/** Every log line the app wrote, at debug level: a secret must never be among them. */
const logLines: string[] = [];

beforeAll(async () => {
  const destination = new Writable({ write: (chunk, _encoding, done) => void (logLines.push(String(chunk)), done()) });
  // The escape hatch is off (the default): loopback and plain http are refused, as in production.
  t = await createTestApp({ logger: createLogger({ level: 'debug', destination }) });
});
afterAll(async () => {
  await t.close();
});

type Account = { headers: Record<string, string> };
const request = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
// Tests only ever name loopback: with the escape hatch off it is refused before any socket opens.
const hook = { url: 'https://127.0.0.1/hooks', events: ['run.completed'] };

/**
 * An endpoint of `userId` written directly, as if saved with a public URL (saving one would resolve
 * a real name): `.invalid` never resolves, and these tests send nothing to it.
 */
async function insertEndpoint(userId: string, overrides: Partial<typeof webhookEndpoints.$inferInsert> = {}) {
  const id = `whk_test_${Math.random().toString(36).slice(2, 10)}`;
  await t.db.insert(webhookEndpoints).values({ id, userId, url: 'https://hooks.example.invalid/agentq', events: ['run.completed', 'run.failed'], secretEncrypted: encryptSecret('whsec_dGVzdA==', TEST_APP_SECRET), ...overrides });
  return id;
}

describe('webhooks API', () => {
  it('refuses bad input with 400 and the zod issues, never 500', async () => {
    const user = await t.signUp();
    for (const [body, field] of [
      [{ ...hook, url: 'not a url' }, 'url'],
      [{ ...hook, url: 'ftp://example.com/x' }, 'url'],
      [{ ...hook, url: `https://example.com/${'x'.repeat(2_000)}` }, 'url'],
      [{ ...hook, events: [] }, 'events'],
      [{ ...hook, events: ['run.exploded'] }, 'events'],
      [{ ...hook, events: 'run.completed' }, 'events'],
      [{ ...hook, description: 'x'.repeat(501) }, 'description'],
      [{ ...hook, enabled: 'yes' }, 'enabled'],
      [{ events: ['run.completed'] }, 'url'],
    ] as const) {
      const refused = await request('POST', '/api/webhooks', user, body);
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const { error } = await refused.json();
      expect(error.issues.map((issue: { path: string[] }) => issue.path[0]), JSON.stringify(body).slice(0, 80)).toContain(field);
    }
    expect((await request('POST', '/api/webhooks', user, '{"url":')).status).toBe(400);
    const id = await insertEndpoint(user.user.id);
    expect((await request('PATCH', `/api/webhooks/${id}`, user, {})).status).toBe(400);
    expect((await request('PATCH', `/api/webhooks/${id}`, user, { events: ['nope'] })).status).toBe(400);
    expect((await request('GET', `/api/webhooks/${id}/deliveries?limit=0`, user)).status).toBe(400);
  });

  it('refuses loopback and private destinations and plain http while FETCH_ALLOW_PRIVATE_NETWORKS is off, naming the url', async () => {
    const user = await t.signUp();
    for (const url of ['https://127.0.0.1/hooks', 'https://0x7f.1/hooks', 'https://[::1]/hooks', 'https://localhost/hooks', 'https://[::ffff:127.0.0.1]/hooks', 'http://127.0.0.1:9/hooks']) {
      const refused = await request('POST', '/api/webhooks', user, { ...hook, url });
      expect(refused.status, url).toBe(400);
      const { error } = await refused.json();
      expect(error.issues[0].path, url).toEqual(['url']);
    }
    const id = await insertEndpoint(user.user.id);
    const patched = await request('PATCH', `/api/webhooks/${id}`, user, { url: 'https://127.0.0.1:8443/x' });
    expect(patched.status).toBe(400);
    expect((await patched.json()).error.message).toMatch(/loopback/);
    expect((await t.db.select().from(webhookEndpoints)).filter((row) => row.userId === user.user.id)).toHaveLength(1);
  });

  it('creates an endpoint with a secret shown once and stored encrypted; lists, changes, rotates and deletes it', async () => {
    const app = await createTestApp({ allowPrivateNetworks: true });
    try {
      const user = await app.signUp();
      const call = (method: string, path: string, body?: unknown) => app.app.request(path, { method, headers: user.headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const response = await call('POST', '/api/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['run.completed', 'approval.requested', 'run.completed'], description: 'CI' });
      expect(response.status).toBe(201);
      const created = await response.json();
      expect(created).toMatchObject({ id: expect.stringMatching(/^whk_/), url: 'http://127.0.0.1:9/hooks', events: ['run.completed', 'approval.requested'], description: 'CI', enabled: true, consecutiveFailures: 0, disabledReason: null });
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(created).not.toHaveProperty('secretEncrypted');
      const [row] = await app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
      expect(row!.secretEncrypted).not.toContain(created.secret.slice(6));
      expect(decryptSecret(row!.secretEncrypted, TEST_APP_SECRET)).toBe(created.secret);

      // Never again: not in the list, not in the detail, not after a change.
      const listed = await (await call('GET', '/api/webhooks')).json();
      expect(listed.items).toHaveLength(1);
      const shown = await (await call('GET', `/api/webhooks/${created.id}`)).json();
      const changed = await (await call('PATCH', `/api/webhooks/${created.id}`, { enabled: false, description: 'off for now' })).json();
      for (const view of [listed.items[0], shown, changed]) {
        expect(JSON.stringify(view)).not.toContain('whsec_');
        expect(view).not.toHaveProperty('secret');
      }
      expect(changed).toMatchObject({ enabled: false, description: 'off for now' });

      const rotated = await (await call('POST', `/api/webhooks/${created.id}/rotate-secret`)).json();
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(created.secret);
      const [rotatedRow] = await app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
      expect(decryptSecret(rotatedRow!.secretEncrypted, TEST_APP_SECRET)).toBe(rotated.secret);

      expect((await call('DELETE', `/api/webhooks/${created.id}`)).status).toBe(204);
      expect((await call('GET', `/api/webhooks/${created.id}`)).status).toBe(404);
      expect((await call('DELETE', `/api/webhooks/${created.id}`)).status).toBe(404);

      // Each change is in the audit log with the host only, never the secret.
      const audited = await app.db.select().from(auditEvents).where(eq(auditEvents.targetId, created.id)).orderBy(asc(auditEvents.id));
      expect(audited.map(({ action, actorUserId, details }) => ({ action, actorUserId, details }))).toEqual([
        { action: 'webhook.create', actorUserId: user.user.id, details: { host: '127.0.0.1:9', events: ['run.completed', 'approval.requested'] } },
        { action: 'webhook.update', actorUserId: user.user.id, details: { host: '127.0.0.1:9', fields: ['description', 'enabled'] } },
        { action: 'webhook.rotate-secret', actorUserId: user.user.id, details: null },
        { action: 'webhook.delete', actorUserId: user.user.id, details: { host: '127.0.0.1:9' } },
      ]);
      expect(JSON.stringify(audited)).not.toContain('whsec_');
    } finally {
      await app.close();
    }
  });

  it('a test event is logged as pending and queued under the delivery\'s id; a redelivery sends the same event as a new delivery', async () => {
    const user = await t.signUp();
    const id = await insertEndpoint(user.user.id, { enabled: false });
    const sent = await request('POST', `/api/webhooks/${id}/test`, user);
    expect(sent.status).toBe(202);
    const delivery = await sent.json();
    expect(delivery).toMatchObject({ id: expect.stringMatching(/^whd_/), endpointId: id, eventType: 'ping', status: 'pending', attempts: 0, eventId: expect.stringMatching(/^evt_/) });
    const job = await t.queues.webhookDeliveries.getJob(delivery.id);
    expect(job?.data).toMatchObject({ deliveryId: delivery.id, endpointId: id, manual: true, event: { id: delivery.eventId, type: 'ping' } });
    expect(job?.opts.attempts).toBe(5);

    const again = await request('POST', `/api/webhooks/${id}/deliveries/${delivery.id}/redeliver`, user);
    expect(again.status).toBe(202);
    const redelivery = await again.json();
    expect(redelivery.id).not.toBe(delivery.id);
    expect(redelivery.eventId).toBe(delivery.eventId);
    const { items } = await (await request('GET', `/api/webhooks/${id}/deliveries`, user)).json();
    expect(items.map((item: { id: string }) => item.id)).toEqual([redelivery.id, delivery.id]);
    expect(items[0]).not.toHaveProperty('payload');
    expect((await request('POST', `/api/webhooks/${id}/deliveries/whd_missing/redeliver`, user)).status).toBe(404);
  });

  it('another user\'s endpoint and deliveries answer 404 for every route, and nothing changes', async () => {
    const owner = await t.signUp();
    const other = await t.signUp();
    const admin = await t.signUp('admin');
    const id = await insertEndpoint(owner.user.id);
    const [delivery] = await t.db
      .insert(webhookDeliveries)
      .values({ id: `whd_test_${Date.now()}`, endpointId: id, userId: owner.user.id, eventId: 'evt_x', eventType: 'ping', payload: { id: 'evt_x', type: 'ping', createdAt: new Date().toISOString(), data: {} } })
      .returning();
    for (const intruder of [other, admin]) {
      for (const [method, path, body] of [
        ['GET', `/api/webhooks/${id}`],
        ['PATCH', `/api/webhooks/${id}`, { enabled: false }],
        ['DELETE', `/api/webhooks/${id}`],
        ['POST', `/api/webhooks/${id}/rotate-secret`],
        ['GET', `/api/webhooks/${id}/deliveries`],
        ['POST', `/api/webhooks/${id}/test`],
        ['POST', `/api/webhooks/${id}/deliveries/${delivery!.id}/redeliver`],
      ] as const) {
        expect((await request(method, path, intruder, body)).status, `${method} ${path}`).toBe(404);
      }
      expect((await (await request('GET', '/api/webhooks', intruder)).json()).items).toEqual([]);
    }
    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect(row).toMatchObject({ enabled: true, userId: owner.user.id });
    expect(await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id))).toHaveLength(1);
    expect((await t.app.request(`/api/webhooks/${id}`)).status).toBe(401);
  });

  it('never logs a signing secret', async () => {
    const user = await t.signUp();
    const id = await insertEndpoint(user.user.id);
    const rotated = await (await request('POST', `/api/webhooks/${id}/rotate-secret`, user)).json();
    expect(rotated.secret).toMatch(/^whsec_/);
    const logs = logLines.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain('whsec_');
    expect(logs).not.toContain(rotated.secret.slice(6, 30));
  });
});
