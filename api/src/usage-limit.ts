import { runs } from '@agentq/shared/db';
import { assertWithinUsageLimit, UsageLimitReachedError } from '@agentq/shared/services';
import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv } from './deps';
import { currentUser } from './middleware/auth';

/** The deps the usage-limit services take, from a request's context. */
export const usageDeps = (c: Context<AppEnv>) => ({ db: c.get('db'), redis: c.get('redis'), prefix: c.get('queues').prefix });

/**
 * Refuses a send (429 `usage_limit`, handleError) when the signed-in user's spend has reached a
 * limit; call before anything is created. With no limit for the user it reads only the cached
 * settings: no statement, no Redis call. A retried request (its Idempotency-Key names a run it
 * already started) is let through, so it answers that run as a retry should.
 */
export async function enforceUsageLimit(c: Context<AppEnv>, idempotencyKey?: string): Promise<void> {
  const user = currentUser(c);
  try {
    await assertWithinUsageLimit(usageDeps(c), { id: user.id, isAdmin: user.role === 'admin' });
  } catch (error) {
    if (!(error instanceof UsageLimitReachedError) || !idempotencyKey) throw error;
    const [earlier] = await c.get('db').select({ id: runs.id }).from(runs).where(and(eq(runs.userId, user.id), eq(runs.idempotencyKey, idempotencyKey)));
    if (!earlier) throw error;
  }
}
