import { eq } from 'drizzle-orm';
import type { WebhookEventType } from '../../api-types/webhooks';
import type { Database } from '../../db/client';
import { webhookEndpoints } from '../../db/schema';
import { cachedConfig } from '../config-cache';

/** Per user, their enabled endpoints and the events each wants. */
export type WebhookSubscriptions = ReadonlyMap<string, readonly { endpointId: string; events: readonly WebhookEventType[] }[]>;

async function loadSubscriptions(db: Database): Promise<WebhookSubscriptions> {
  const rows = await db.select({ id: webhookEndpoints.id, userId: webhookEndpoints.userId, events: webhookEndpoints.events }).from(webhookEndpoints).where(eq(webhookEndpoints.enabled, true));
  const byUser = new Map<string, { endpointId: string; events: WebhookEventType[] }[]>();
  for (const row of rows) {
    const list = byUser.get(row.userId) ?? [];
    list.push({ endpointId: row.id, events: row.events });
    byUser.set(row.userId, list);
  }
  return byUser;
}

/**
 * The user's enabled endpoints subscribed to `type`, from one snapshot of every enabled endpoint
 * that the config cache keeps per process (scope `webhooks`, dropped everywhere on any endpoint
 * change): a run's end asks this, and a user with no webhook costs no query and no Redis call.
 */
export async function webhookSubscribers(db: Database, userId: string, type: WebhookEventType): Promise<string[]> {
  const subscriptions = await cachedConfig(db, 'webhooks', () => loadSubscriptions(db));
  return (subscriptions.get(userId) ?? []).filter((endpoint) => endpoint.events.includes(type)).map((endpoint) => endpoint.endpointId);
}
