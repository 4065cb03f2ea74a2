import { boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryEventType, type WebhookEventType } from '../../api-types/webhooks';
import { timestamps } from './columns';
import { users } from './users';

export { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type WebhookDeliveryEventType, type WebhookDeliveryStatus, type WebhookEventType } from '../../api-types/webhooks';

/**
 * A user's webhook endpoint: a URL that gets a signed POST when one of `events` happens to one of
 * their runs. The signing secret is stored encrypted with APP_SECRET (services/secrets.ts) and shown
 * only when created or rotated.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    events: text('events').array().notNull().$type<WebhookEventType[]>(),
    enabled: boolean('enabled').notNull().default(true),
    secretEncrypted: text('secret_encrypted').notNull(),
    /** Failed deliveries (all attempts spent) since the last success; reaching the limit disables the endpoint. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    disabledReason: text('disabled_reason'),
    disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
    lastDeliveryAt: timestamp('last_delivery_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [index('webhook_endpoints_user_idx').on(table.userId, table.createdAt), index('webhook_endpoints_enabled_idx').on(table.enabled)],
);

/** One event sent (or being sent) to one endpoint: the delivery log. Written by the delivery job on each attempt. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The event's id, sent as `webhook-id`: the same on every attempt and redelivery, for receivers to dedupe. */
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull().$type<WebhookDeliveryEventType>(),
    /** The JSON body sent (without signature), kept for redelivery. */
    payload: jsonb('payload').notNull(),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    responseStatus: integer('response_status'),
    responseExcerpt: text('response_excerpt'),
    error: text('error'),
    durationMs: integer('duration_ms'),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [index('webhook_deliveries_endpoint_idx').on(table.endpointId, table.createdAt)],
);
