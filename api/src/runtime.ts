import type { Database } from '@agentq/shared/db';
import type { Env } from '@agentq/shared/env';
import type { Logger } from '@agentq/shared/logger';
import { createQueues } from '@agentq/shared/queues';
import { checkEvictionPolicy, createApiRedis } from '@agentq/shared/redis';
import { ensureAdmin } from '@agentq/shared/services';
import { createApp } from './app';

/** Wires the app to its connections; used by the API process and the all-in-one server. */
export async function createApiRuntime(options: { env: Env; db: Database; redisUrl: string; logger: Logger }) {
  const { env, db, logger } = options;
  const redis = createApiRedis(options.redisUrl);
  redis.on('error', (error) => logger.debug({ err: error }, 'api redis connection error'));
  void checkEvictionPolicy(redis, logger);
  const queues = createQueues(redis, env.QUEUE_PREFIX);
  if (env.ADMIN_EMAIL && env.ADMIN_PASSWORD && (await ensureAdmin(db, env.ADMIN_EMAIL, env.ADMIN_PASSWORD))) {
    logger.info({ email: env.ADMIN_EMAIL }, 'bootstrap admin created');
  }
  const app = createApp({
    db,
    redis,
    queues,
    logger,
    config: { secureCookies: env.PUBLIC_ORIGIN?.startsWith('https:') ?? false, bodyLimitBytes: 1024 * 1024 },
  });
  return {
    app,
    close: async () => {
      await queues.close().catch(() => {});
      redis.disconnect();
    },
  };
}
