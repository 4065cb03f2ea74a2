import { z } from 'zod';

/**
 * Outgoing webhooks on the wire: the events a user can subscribe an endpoint to, the request
 * schemas the API validates with and the response shapes (dates as ISO strings). zod only, so the
 * web app may import it.
 */

/** What an endpoint may subscribe to; `ping` is only ever sent by "Send test event". */
export const WEBHOOK_EVENT_TYPES = ['run.completed', 'run.failed', 'run.cancelled', 'approval.requested'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export type WebhookDeliveryEventType = WebhookEventType | 'ping';

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

const url = z
  .string()
  .trim()
  .max(2_000, 'Keep the URL under 2,000 characters')
  .pipe(z.url({ protocol: /^https?$/, error: 'Enter an http(s) URL, e.g. https://example.com/hooks/agentq' }));
const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `Choose from ${WEBHOOK_EVENT_TYPES.join(', ')}` }))
  .min(1, 'Choose at least one event')
  .transform((chosen) => [...new Set(chosen)]);
const description = z.string().trim().max(500, 'Keep the description under 500 characters');

/** POST /api/webhooks. */
export const createWebhookInputSchema = z.object({
  url,
  events,
  description: description.default(''),
  enabled: z.boolean().default(true),
});
export type CreateWebhookInput = z.input<typeof createWebhookInputSchema>;

/** PATCH /api/webhooks/:id: any of the fields; `enabled: true` also clears an automatic disable. */
export const updateWebhookInputSchema = z
  .object({ url, events, description, enabled: z.boolean() })
  .partial()
  .refine((input) => Object.keys(input).length > 0, 'Send a url, events, description or enabled');
export type UpdateWebhookInput = z.input<typeof updateWebhookInputSchema>;
