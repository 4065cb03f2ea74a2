import { serve } from '@hono/node-server';
import { createDb, databaseOptionsFromEnv } from '@agentq/shared/db';
import { getEnvOrExit } from '@agentq/shared/env';
import { createLogger, guardProcess } from '@agentq/shared/logger';
import { redisTargetFromEnv } from '@agentq/shared/redis';
import { countAdmins } from '@agentq/shared/services';
import { createApiRuntime } from './runtime';

/** Production API process (docker-compose `api`, `npm run start:api`); `npm start` runs the all-in-one server instead. */
async function main() {
  const env = getEnvOrExit(['DATABASE_URL', 'REDIS_URL', 'APP_SECRET']);
  const logger = createLogger({ level: env.LOG_LEVEL, name: 'agentq-api' });
  guardProcess(logger);
  const database = await createDb(databaseOptionsFromEnv(env));
  await database.migrate();
  const runtime = await createApiRuntime({ env, db: database.db, redisUrl: redisTargetFromEnv(env)!, logger });
  // Before listening: the first burst of requests finds its connections open (see DbHandle.warm).
  await database.warm().catch((error: unknown) => logger.warn({ err: error }, 'could not open the database pool ahead of time'));
  if ((await countAdmins(database.db)) === 0) {
    logger.warn('no admin account exists yet: create one with `npm run create-admin -- --email you@example.com --password-stdin` (or set ADMIN_EMAIL and ADMIN_PASSWORD)');
  }
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
