import { createWebhookInputSchema, updateWebhookInputSchema } from '@agentq/shared/api-types';
import { enqueue } from '@agentq/shared/queues';
import {
  changedFields,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  deliveryQuerySchema,
  discardManualDelivery,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  rotateWebhookSecret,
  startRedelivery,
  startTestDelivery,
  updateWebhookEndpoint,
  type WebhookDeliveryJob,
} from '@agentq/shared/services';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import { audit } from '../audit';
import type { AppEnv } from '../deps';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });
const deliveryParam = idParam.extend({ deliveryId: z.string().min(1).max(100) });

/** The URL check's network rules: the fetch tool's, FETCH_ALLOW_PRIVATE_NETWORKS included. */
function network(c: Context<AppEnv>) {
  return { allowPrivateNetworks: c.get('config').allowPrivateNetworks ?? false };
}

/** Queues a delivery the user asked for; its log row already says pending. */
/** Queues a delivery the user asked for; if that fails (503), its pending log row goes with it. */
async function enqueueDelivery(c: Context<AppEnv>, job: WebhookDeliveryJob): Promise<void> {
  try {
    await enqueue(c.get('queues'), 'webhookDeliveries', 'webhook-delivery', job, { jobId: job.deliveryId });
  } catch (error) {
    await discardManualDelivery(c.get('db'), job.deliveryId);
    throw error;
  }
}

const tags = ['webhooks'];

/** Where an endpoint points, for the audit log: its host only, as a URL's path or query may carry a token. */
const hostOf = (url: string) => new URL(url).host;

/** The signed-in user's webhook endpoints and their delivery logs (docs/webhooks.md). */
export const webhookRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get('/', describeRoute({ tags, summary: 'Your webhook endpoints (never their secrets)' }), async (c) => c.json({ items: await listWebhookEndpoints(c.get('db'), currentUser(c).id) }))
  .post(
    '/',
    describeRoute({
      tags,
      summary: 'Add a webhook endpoint',
      description:
        '`url` must be https and a public address (the fetch tool\'s SSRF rules); `events`: any of `run.completed`, `run.failed`, `run.cancelled`, `approval.requested`. The answer carries `secret` (`whsec_…`), the signing key, shown only this once. At most 20 per user (409).',
    }),
    validate('json', createWebhookInputSchema),
    async (c) => {
      const created = await createWebhookEndpoint(c.get('db'), currentUser(c).id, c.req.valid('json'), { ...network(c), appSecret: c.get('config').appSecret });
      await audit(c, { action: 'webhook.create', targetType: 'webhook', targetId: created.id, details: { host: hostOf(created.url), events: created.events } });
      return c.json(created, 201);
    },
  )
  .get('/:id', describeRoute({ tags, summary: 'One of your webhook endpoints' }), validate('param', idParam), async (c) =>
    c.json(await getWebhookEndpoint(c.get('db'), currentUser(c).id, c.req.valid('param').id)),
  )
  .patch(
    '/:id',
    describeRoute({ tags, summary: 'Change an endpoint; `enabled: true` also clears an automatic disable' }),
    validate('param', idParam),
    validate('json', updateWebhookInputSchema),
    async (c) => {
      const input = c.req.valid('json');
      const updated = await updateWebhookEndpoint(c.get('db'), currentUser(c).id, c.req.valid('param').id, input, network(c));
      await audit(c, { action: 'webhook.update', targetType: 'webhook', targetId: updated.id, details: { host: hostOf(updated.url), fields: changedFields(input) } });
      return c.json(updated);
    },
  )
  .delete('/:id', describeRoute({ tags, summary: 'Delete an endpoint and its delivery log' }), validate('param', idParam), async (c) => {
    const endpoint = await getWebhookEndpoint(c.get('db'), currentUser(c).id, c.req.valid('param').id);
    await deleteWebhookEndpoint(c.get('db'), currentUser(c).id, endpoint.id);
    await audit(c, { action: 'webhook.delete', targetType: 'webhook', targetId: endpoint.id, details: { host: hostOf(endpoint.url) } });
    return c.body(null, 204);
  })
  .post('/:id/rotate-secret', describeRoute({ tags, summary: 'Replace the signing secret; the answer carries the new one, shown only this once' }), validate('param', idParam), async (c) => {
    const rotated = await rotateWebhookSecret(c.get('db'), currentUser(c).id, c.req.valid('param').id, { appSecret: c.get('config').appSecret });
    await audit(c, { action: 'webhook.rotate-secret', targetType: 'webhook', targetId: rotated.id });
    return c.json(rotated);
  })
  .get(
    '/:id/deliveries',
    describeRoute({ tags, summary: 'The endpoint\'s deliveries, newest first: status, attempts, response code, duration' }),
    validate('param', idParam),
    validate('query', deliveryQuerySchema),
    async (c) => c.json({ items: await listWebhookDeliveries(c.get('db'), currentUser(c).id, c.req.valid('param').id, c.req.valid('query')) }),
  )
  .post('/:id/test', describeRoute({ tags, summary: 'Send a `ping` event now (also to a disabled endpoint); 202 with the delivery' }), validate('param', idParam), async (c) => {
    const { delivery, job } = await startTestDelivery(c.get('db'), currentUser(c).id, c.req.valid('param').id);
    await enqueueDelivery(c, job);
    return c.json(delivery, 202);
  })
  .post(
    '/:id/deliveries/:deliveryId/redeliver',
    describeRoute({ tags, summary: 'Send a delivery\'s event again (same `webhook-id`) as a new delivery; 202 with it' }),
    validate('param', deliveryParam),
    async (c) => {
      const { id, deliveryId } = c.req.valid('param');
      const { delivery, job } = await startRedelivery(c.get('db'), currentUser(c).id, id, deliveryId);
      await enqueueDelivery(c, job);
      return c.json(delivery, 202);
    },
  );
