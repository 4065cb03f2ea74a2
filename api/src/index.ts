import { serve } from '@hono/node-server';
import { createDb } from '@agentq/shared/db';
import { getEnv } from '@agentq/shared/env';
import { createLogger, guardProcess } from '@agentq/shared/logger';
import { createApiRuntime } from './runtime';

/** Production API process (docker-compose `api`); `npm start` runs the all-in-one server instead. */
async function main() {
  const env = getEnv();
  const logger = createLogger({ level: env.LOG_LEVEL, name: 'agentq-api' });
  guardProcess(logger);
  if (!env.DATABASE_URL || !env.REDIS_URL) {
    logger.fatal('A separate API process needs DATABASE_URL (PostgreSQL) and REDIS_URL; use `npm start` for the all-in-one mode');
    process.exit(1);
  }
  const database = await createDb({ url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE });
  await database.migrate();
  const runtime = await createApiRuntime({ env, db: database.db, redisUrl: env.REDIS_URL, logger });
  const server = serve({ fetch: runtime.app.fetch, port: env.PORT, hostname: env.HOST }, (info) =>
    logger.info({ port: info.port }, 'api listening'),
  );
  const stop = () => {
    server.close();
    void runtime.close().then(() => database.close()).finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

await main();
