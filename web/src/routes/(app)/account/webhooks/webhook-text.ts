import { t } from '#lib/i18n/i18n.svelte.ts';
import type { WebhookDelivery, WebhookEventType } from '#lib/webhooks/webhooks-api.ts';

/** What an event means, in the UI's language. */
export function eventLabel(type: WebhookEventType | 'ping'): string {
  const labels = {
    'run.completed': t('webhooks.eventCompleted'),
    'run.failed': t('webhooks.eventFailed'),
    'run.cancelled': t('webhooks.eventCancelled'),
    'approval.requested': t('webhooks.eventApproval'),
    ping: t('webhooks.eventPing'),
  } satisfies Record<WebhookEventType | 'ping', string>;
  return labels[type];
}

/** A delivery's status in words. */
export function deliveryStatusLabel(status: WebhookDelivery['status']): string {
  const labels = {
    pending: t('webhooks.statusPending'),
    retrying: t('webhooks.statusRetrying'),
    succeeded: t('webhooks.statusSucceeded'),
    failed: t('webhooks.statusFailed'),
  } satisfies Record<WebhookDelivery['status'], string>;
  return labels[status];
}
