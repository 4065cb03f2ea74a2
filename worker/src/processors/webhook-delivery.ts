import type { JobPayload } from '@agentq/shared/queues';
import { attemptWebhookDelivery, type DeliveryAttempt } from '@agentq/shared/services';
import type { Job } from 'bullmq';
import type { WorkerDeps } from '../processor';

/** A delivery attempt that should be tried again: thrown so BullMQ backs off (the log already has it). */
export class WebhookAttemptFailedError extends Error {
  override name = 'WebhookAttemptFailedError';
}

/**
 * One attempt to deliver a webhook event to one endpoint (services/webhooks/deliveries.ts): a
 * network error or a non-2xx answer throws while attempts remain, so BullMQ retries with its
 * exponential backoff; a refused destination or the last attempt completes the job with the
 * delivery marked failed.
 */
export async function processWebhookDelivery(job: Job<JobPayload<'webhookDeliveries', 'webhook-delivery'>>, deps: WorkerDeps): Promise<DeliveryAttempt> {
  const attempt = job.attemptsMade + 1;
  const outcome = await attemptWebhookDelivery(deps.db, job.data, {
    attempt,
    maxAttempts: job.opts.attempts ?? 1,
    appSecret: deps.config.appSecret,
    allowPrivateNetworks: deps.allowPrivateNetworks,
  });
  // The event's id and type only: never its body or the endpoint's secret.
  deps.logger.info({ deliveryId: job.data.deliveryId, endpointId: job.data.endpointId, eventType: job.data.event.type, attempt, status: outcome.status, error: outcome.error }, 'webhook delivery attempt');
  if (outcome.retry) throw new WebhookAttemptFailedError(`Webhook delivery ${job.data.deliveryId} failed (${outcome.error}); retrying`);
  return outcome;
}
