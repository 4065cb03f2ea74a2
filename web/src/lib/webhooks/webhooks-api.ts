/** The user's webhook endpoints (`/api/webhooks`): list, create, change, delete, rotate, deliveries, test, redeliver. */
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { segment, type FetchOption, type RouteOutput } from '../api-routes.ts';

export { WEBHOOK_EVENT_TYPES, type WebhookEventType };
export type Webhook = RouteOutput<'/webhooks/:id', '$get'>;
/** The create and rotate answers: the endpoint and its signing secret, shown this once. */
export type WebhookWithSecret = RouteOutput<'/webhooks', '$post'>;
export type WebhookDelivery = RouteOutput<'/webhooks/:id/deliveries', '$get'>['items'][number];
export type WebhookInput = { url: string; description: string; events: WebhookEventType[]; enabled?: boolean };

export async function listWebhooks(options: FetchOption = {}): Promise<Webhook[]> {
  return (await apiFetch<{ items: Webhook[] }>('/api/webhooks', options)).items;
}

export function createWebhook(input: WebhookInput): Promise<WebhookWithSecret> {
  return apiFetch('/api/webhooks', { method: 'POST', json: input });
}

export function updateWebhook(id: string, input: Partial<WebhookInput>): Promise<Webhook> {
  return apiFetch(`/api/webhooks/${segment(id)}`, { method: 'PATCH', json: input });
}

export async function deleteWebhook(id: string): Promise<void> {
  await apiFetch(`/api/webhooks/${segment(id)}`, { method: 'DELETE' });
}

export function rotateWebhookSecret(id: string): Promise<WebhookWithSecret> {
  return apiFetch(`/api/webhooks/${segment(id)}/rotate-secret`, { method: 'POST' });
}

export async function listDeliveries(id: string, options: FetchOption = {}): Promise<WebhookDelivery[]> {
  return (await apiFetch<{ items: WebhookDelivery[] }>(`/api/webhooks/${segment(id)}/deliveries`, options)).items;
}

/** Sends a `ping` now: answers its delivery (pending). */
export function sendTestEvent(id: string): Promise<WebhookDelivery> {
  return apiFetch(`/api/webhooks/${segment(id)}/test`, { method: 'POST' });
}

export function redeliver(id: string, deliveryId: string): Promise<WebhookDelivery> {
  return apiFetch(`/api/webhooks/${segment(id)}/deliveries/${segment(deliveryId)}/redeliver`, { method: 'POST' });
}
