import { and, asc, count, eq, getTableColumns, sql } from 'drizzle-orm';
import { createWebhookInputSchema, updateWebhookInputSchema, type CreateWebhookInput, type UpdateWebhookInput } from '../../api-types/webhooks';
import type { Database } from '../../db/client';
import { webhookEndpoints } from '../../db/schema';
import { newId } from '../../ids';
import { invalidateConfig } from '../config-cache';
import { ConflictError, NotFoundError } from '../errors';
import { encryptSecret } from '../secrets';
import { checkWebhookUrl, type WebhookNetworkOptions } from './check-url';
import { generateWebhookSecret } from './signature';

/**
 * A user's webhook endpoints. Every query is scoped to the owner, so another user's endpoint reads
 * as missing (404). The secret is encrypted at rest and leaves only in the create and rotate answers.
 */

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
/** An endpoint as the API shows it: everything but the secret. */
export type WebhookEndpointRow = Omit<WebhookEndpoint, 'secretEncrypted' | 'userId'>;

/** How many endpoints one user may keep. */
export const WEBHOOKS_PER_USER = 20;

/** What saving an endpoint needs besides the database: the secret's key and the URL check's network rules. */
export type WebhookSaveOptions = WebhookNetworkOptions & { appSecret: string };

const { secretEncrypted: _secret, userId: _userId, ...viewColumns } = getTableColumns(webhookEndpoints);
const owned = (userId: string, id: string) => and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.userId, userId));

/** The user's endpoints, oldest first. */
export async function listWebhookEndpoints(db: Database, userId: string): Promise<WebhookEndpointRow[]> {
  return db.select(viewColumns).from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId)).orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

/** One of the user's endpoints; NotFound for anyone else's. */
export async function getWebhookEndpoint(db: Database, userId: string, id: string): Promise<WebhookEndpointRow> {
  const [row] = await db.select(viewColumns).from(webhookEndpoints).where(owned(userId, id));
  if (!row) throw new NotFoundError('Webhook', id);
  return row;
}

/** Creates an endpoint with a new signing secret; the answer carries the secret, this once. */
export async function createWebhookEndpoint(db: Database, userId: string, input: CreateWebhookInput, options: WebhookSaveOptions): Promise<WebhookEndpointRow & { secret: string }> {
  const parsed = createWebhookInputSchema.parse(input);
  await checkWebhookUrl(parsed.url, options);
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId));
  if (total >= WEBHOOKS_PER_USER) throw new ConflictError(`You have ${WEBHOOKS_PER_USER} webhooks, the most allowed; delete one first`);
  const secret = generateWebhookSecret();
  const [row] = await db
    .insert(webhookEndpoints)
    .values({ id: newId('webhook'), userId, ...parsed, secretEncrypted: encryptSecret(secret, options.appSecret) })
    .returning(viewColumns);
  await invalidateConfig(db, ['webhooks']);
  return { ...row!, secret };
}

/** Changes an endpoint; switching it on again clears an automatic disable and its failure count. */
export async function updateWebhookEndpoint(db: Database, userId: string, id: string, input: UpdateWebhookInput, options: WebhookNetworkOptions): Promise<WebhookEndpointRow> {
  const parsed = updateWebhookInputSchema.parse(input);
  if (parsed.url !== undefined) await checkWebhookUrl(parsed.url, options);
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      ...parsed,
      ...(parsed.enabled === true && { consecutiveFailures: 0, disabledReason: null, disabledAt: null }),
      ...(parsed.enabled === false && { disabledReason: null, disabledAt: sql`now()` }),
    })
    .where(owned(userId, id))
    .returning(viewColumns);
  if (!row) throw new NotFoundError('Webhook', id);
  await invalidateConfig(db, ['webhooks']);
  return row;
}

/** Deletes an endpoint and its delivery log; deliveries still queued find it gone and stop. */
export async function deleteWebhookEndpoint(db: Database, userId: string, id: string): Promise<void> {
  const deleted = await db.delete(webhookEndpoints).where(owned(userId, id)).returning({ id: webhookEndpoints.id });
  if (deleted.length === 0) throw new NotFoundError('Webhook', id);
  await invalidateConfig(db, ['webhooks']);
}

/** Replaces the signing secret at once (the old one stops verifying); the answer carries the new one, this once. */
export async function rotateWebhookSecret(db: Database, userId: string, id: string, options: { appSecret: string }): Promise<WebhookEndpointRow & { secret: string }> {
  const secret = generateWebhookSecret();
  const [row] = await db.update(webhookEndpoints).set({ secretEncrypted: encryptSecret(secret, options.appSecret) }).where(owned(userId, id)).returning(viewColumns);
  if (!row) throw new NotFoundError('Webhook', id);
  return { ...row, secret };
}
