import { and, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { WebhookDeliveryStatus } from '../../api-types/webhooks';
import type { Database } from '../../db/client';
import { webhookDeliveries, webhookEndpoints, type WebhookDeliveryEventType } from '../../db/schema';
import { newId } from '../../ids';
import type { JobPayload, WebhookEvent } from '../../queues/catalog';
import { invalidateConfig } from '../config-cache';
import { NotFoundError } from '../errors';
import { decryptSecret, SecretDecryptionError } from '../secrets';
import type { WebhookNetworkOptions } from './check-url';
import { getWebhookEndpoint } from './endpoints';
import { pingEvent } from './events';
import { sendWebhook, type SendOutcome } from './send-webhook';

export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type WebhookDeliveryJob = JobPayload<'webhookDeliveries', 'webhook-delivery'>;
/** A delivery as the log shows it (its body stays in the database, for redelivery). */
export type WebhookDeliveryRow = Omit<WebhookDelivery, 'payload' | 'userId' | 'updatedAt'>;

/** Failed deliveries in a row (every attempt spent) after which an endpoint is switched off. */
export const WEBHOOK_DISABLE_AFTER_FAILURES = 10;

export const deliveryQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(100).default(50) });

const { payload: _payload, userId: _userId, updatedAt: _updatedAt, ...rowColumns } = getTableColumns(webhookDeliveries);

/** The endpoint's deliveries, newest first (NotFound for another user's endpoint). */
export async function listWebhookDeliveries(db: Database, userId: string, endpointId: string, query: z.input<typeof deliveryQuerySchema> = {}): Promise<WebhookDeliveryRow[]> {
  const { limit } = deliveryQuerySchema.parse(query);
  await getWebhookEndpoint(db, userId, endpointId);
  return db
    .select(rowColumns)
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.userId, userId)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
}

/** Logs a delivery a user asked for (a test event, a redelivery) as pending, and answers its job. */
async function startManualDelivery(db: Database, userId: string, endpointId: string, event: WebhookEvent): Promise<{ delivery: WebhookDeliveryRow; job: WebhookDeliveryJob }> {
  const id = newId('webhookDelivery');
  const [delivery] = await db
    .insert(webhookDeliveries)
    .values({ id, endpointId, userId, eventId: event.id, eventType: event.type as WebhookDeliveryEventType, payload: event })
    .returning(rowColumns);
  return { delivery: delivery!, job: { deliveryId: id, endpointId, event, manual: true } };
}

/**
 * A manual delivery whose job could not be queued (Redis down): its log row goes, so the log shows
 * no delivery "pending" that nothing will send. A job that was queued after all writes the row
 * again at its attempt.
 */
export async function discardManualDelivery(db: Database, deliveryId: string): Promise<void> {
  await db.delete(webhookDeliveries).where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, 'pending')));
}

/** "Send test event": a `ping` to the endpoint, sent even while it is disabled. */
export async function startTestDelivery(db: Database, userId: string, endpointId: string) {
  await getWebhookEndpoint(db, userId, endpointId);
  return startManualDelivery(db, userId, endpointId, pingEvent(endpointId));
}

/** "Redeliver": the same event (same `webhook-id`, same body) as a new delivery of its own. */
export async function startRedelivery(db: Database, userId: string, endpointId: string, deliveryId: string) {
  const [previous] = await db
    .select({ payload: webhookDeliveries.payload })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.userId, userId)));
  if (!previous) throw new NotFoundError('Webhook delivery', deliveryId);
  return startManualDelivery(db, userId, endpointId, previous.payload as WebhookEvent);
}

export type DeliveryAttempt = { status: WebhookDeliveryStatus | 'skipped'; retry: boolean; error: string | null };

/**
 * One attempt of a delivery job: sends the event, logs the attempt on the delivery, and once the
 * delivery is final settles its endpoint's failure streak (switching the endpoint off after
 * WEBHOOK_DISABLE_AFTER_FAILURES failed deliveries in a row). `retry`: the caller should throw so
 * BullMQ tries again with backoff. A deleted endpoint ends the job; a disabled one logs "not sent".
 */
export async function attemptWebhookDelivery(
  db: Database,
  job: WebhookDeliveryJob,
  options: WebhookNetworkOptions & { attempt: number; maxAttempts: number; appSecret: string; timeoutMs?: number },
): Promise<DeliveryAttempt> {
  const [endpoint] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, job.endpointId));
  if (!endpoint) return { status: 'skipped', retry: false, error: 'The endpoint was deleted' };
  let outcome: SendOutcome;
  if (!endpoint.enabled && !job.manual) {
    outcome = { ok: false, status: null, excerpt: null, error: 'Not sent: the endpoint is disabled', durationMs: 0, retryable: false };
  } else {
    const secret = openSecret(endpoint.secretEncrypted, options.appSecret);
    outcome = secret.ok ? await sendWebhook(endpoint.url, secret.value, job.event, options) : { ok: false, status: null, excerpt: null, error: secret.error, durationMs: 0, retryable: false };
  }
  const final = outcome.ok || !outcome.retryable || options.attempt >= options.maxAttempts;
  const status: WebhookDeliveryStatus = outcome.ok ? 'succeeded' : final ? 'failed' : 'retrying';
  const attempt = {
    status,
    attempts: options.attempt,
    responseStatus: outcome.status,
    responseExcerpt: outcome.excerpt,
    error: outcome.error,
    durationMs: outcome.durationMs,
    lastAttemptAt: new Date(),
  };
  await db
    .insert(webhookDeliveries)
    .values({ id: job.deliveryId, endpointId: endpoint.id, userId: endpoint.userId, eventId: job.event.id, eventType: job.event.type as WebhookDeliveryEventType, payload: job.event, ...attempt })
    .onConflictDoUpdate({ target: webhookDeliveries.id, set: { ...attempt, updatedAt: sql`now()` } });
  if (final && endpoint.enabled) await settleEndpoint(db, endpoint.id, { ok: outcome.ok, counts: !job.manual, error: outcome.error });
  return { status, retry: !final, error: outcome.error };
}

/** A final delivery's mark on its endpoint: a success ends the failure streak; a failure extends it and may switch the endpoint off. */
async function settleEndpoint(db: Database, endpointId: string, delivery: { ok: boolean; counts: boolean; error: string | null }): Promise<void> {
  if (delivery.ok) {
    await db.update(webhookEndpoints).set({ consecutiveFailures: 0, lastDeliveryAt: sql`now()` }).where(eq(webhookEndpoints.id, endpointId));
    return;
  }
  if (!delivery.counts) return;
  const failures = sql`${webhookEndpoints.consecutiveFailures} + 1`;
  const reachesLimit = sql`${failures} >= ${WEBHOOK_DISABLE_AFTER_FAILURES}`;
  const reason = `Disabled automatically after ${WEBHOOK_DISABLE_AFTER_FAILURES} failed deliveries in a row (last: ${delivery.error ?? 'failed'})`;
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      consecutiveFailures: failures,
      lastDeliveryAt: sql`now()`,
      enabled: sql`case when ${reachesLimit} then false else ${webhookEndpoints.enabled} end`,
      disabledReason: sql`case when ${reachesLimit} then ${reason} else ${webhookEndpoints.disabledReason} end`,
      disabledAt: sql`case when ${reachesLimit} then now() else ${webhookEndpoints.disabledAt} end`,
    })
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.enabled, true)))
    .returning({ enabled: webhookEndpoints.enabled });
  // Switched off: every process stops queueing events for it.
  if (row && !row.enabled) await invalidateConfig(db, ['webhooks']);
}

/** The endpoint's signing secret, or why it cannot be opened (APP_SECRET changed): a delivery failure, not a crash. */
function openSecret(encrypted: string, appSecret: string): { ok: true; value: string } | { ok: false; error: string } {
  try {
    return { ok: true, value: decryptSecret(encrypted, appSecret) };
  } catch (error) {
    if (!(error instanceof SecretDecryptionError)) throw error;
    return { ok: false, error: 'Not sent: the signing secret cannot be decrypted (APP_SECRET changed?); rotate the secret' };
  }
}
