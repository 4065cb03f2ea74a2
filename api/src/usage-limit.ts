import { assertWithinUsageLimit } from '@agentq/shared/services';
import type { Context } from 'hono';
import type { AppEnv } from './deps';
import { currentUser } from './middleware/auth';

/** The deps the usage-limit services take, from a request's context. */
export const usageDeps = (c: Context<AppEnv>) => ({ db: c.get('db'), redis: c.get('redis'), prefix: c.get('queues').prefix });

/**
 * Refuses a send (429 `usage_limit`, handleError) when the signed-in user's spend has reached a
 * limit; call before anything is created. With no limit for the user it reads only the cached
 * settings: no statement, no Redis call.
 */
export function enforceUsageLimit(c: Context<AppEnv>): Promise<void> {
  const user = currentUser(c);
  return assertWithinUsageLimit(usageDeps(c), { id: user.id, isAdmin: user.role === 'admin' });
}
