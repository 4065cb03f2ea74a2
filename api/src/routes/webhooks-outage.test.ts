import { webhookDeliveries, webhookEndpoints } from '@agentq/shared/db';
import { encryptSecret } from '@agentq/shared/services';
import { startPrivateRedis, type PrivateRedis } from '@agentq/shared/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_APP_SECRET } from '../testing';

// A Redis of this file's own: the test stops it.
let server: PrivateRedis;
let t: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  server = await startPrivateRedis({ appendonly: true });
  t = await createTestApp({ redisUrl: server.url });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await server?.dispose();
});

describe('webhook deliveries asked for while Redis is down', () => {
  it('a test event or a redelivery that cannot be queued answers 503 and leaves no pending delivery in the log', async () => {
    const user = await t.signUp();
    // Written directly, as if saved with a public URL: nothing is sent to it (`.invalid` never resolves).
    const endpointId = 'whk_outage_test';
    await t.db.insert(webhookEndpoints).values({ id: endpointId, userId: user.user.id, url: 'https://hooks.example.invalid/agentq', events: ['run.completed'], secretEncrypted: encryptSecret('whsec_dGVzdA==', TEST_APP_SECRET) });
    const post = (path: string) => t.app.request(path, { method: 'POST', headers: user.headers });
    const logged = () => t.db.select({ id: webhookDeliveries.id, status: webhookDeliveries.status }).from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

    const queued = await post(`/api/webhooks/${endpointId}/test`);
    expect(queued.status).toBe(202);
    const first = (await queued.json()) as { id: string };
    expect(await logged()).toEqual([{ id: first.id, status: 'pending' }]);

    await server.stop('SIGTERM');
    try {
      for (const path of [`/api/webhooks/${endpointId}/test`, `/api/webhooks/${endpointId}/deliveries/${first.id}/redeliver`]) {
        const refused = await post(path);
        expect(refused.status, path).toBe(503);
        expect(await logged(), path).toEqual([{ id: first.id, status: 'pending' }]);
      }
    } finally {
      await server.start();
    }
  });
});
