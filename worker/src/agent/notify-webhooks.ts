import type { WebhookEvent } from '@agentq/shared/queues';
import type { WebhookEventType } from '@agentq/shared/api-types';
import { emitWebhookEvent } from '@agentq/shared/services';
import type { WorkerDeps } from '../processor';

/**
 * Queues a webhook event for the user's subscribed endpoints (services/webhooks/emit.ts). Webhooks
 * are a side channel: a failure to queue is logged, never the run's failure. Without a subscriber
 * it costs a cached lookup.
 */
export async function notifyWebhooks(deps: Pick<WorkerDeps, 'db' | 'queues' | 'logger'>, userId: string, type: WebhookEventType, build: () => WebhookEvent): Promise<void> {
  try {
    await emitWebhookEvent(deps, userId, type, build);
  } catch (error) {
    deps.logger.warn({ err: error, eventType: type }, 'could not queue webhook deliveries');
  }
}
