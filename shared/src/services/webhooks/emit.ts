import type { WebhookEventType } from '../../api-types/webhooks';
import type { Database } from '../../db/client';
import { queueCatalog, type WebhookEvent } from '../../queues/catalog';
import type { Queues } from '../../queues/queues';
import { deliveryIdOf } from './events';
import { webhookSubscribers } from './subscriptions';

/**
 * Queues `event` for each of the user's enabled endpoints subscribed to `type`, one job per
 * endpoint under the delivery's stable id (a repeat adds nothing). `build` runs only when someone
 * subscribes; without a subscriber this costs one cached lookup and nothing else. Answers how many
 * deliveries were queued.
 * @example await emitWebhookEvent(deps, run.userId, 'run.completed', () => runEndedEvent(run, { answer }));
 */
export async function emitWebhookEvent(deps: { db: Database; queues: Queues }, userId: string, type: WebhookEventType, build: () => WebhookEvent): Promise<number> {
  const endpointIds = await webhookSubscribers(deps.db, userId, type);
  if (endpointIds.length === 0) return 0;
  const event = build();
  const schema = queueCatalog.webhookDeliveries.jobs['webhook-delivery'];
  await deps.queues.webhookDeliveries.addBulk(
    endpointIds.map((endpointId) => {
      const deliveryId = deliveryIdOf(event.id, endpointId);
      return { name: 'webhook-delivery', data: schema.parse({ deliveryId, endpointId, event }), opts: { jobId: deliveryId } };
    }),
  );
  return endpointIds.length;
}
