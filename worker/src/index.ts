import { createDb } from '@agentq/shared/db';
import { getEnv } from '@agentq/shared/env';
import { createLogger } from '@agentq/shared/logger';
import { createQueues } from '@agentq/shared/queues';
import { checkEvictionPolicy, createWorkerRedis } from '@agentq/shared/redis';
import { processors } from './processors';
import { startWorkers } from './worker';

/** Production worker process: any number of these share the queues. */
async function main() {
  const env = getEnv();
  const logger = createLogger({ level: env.LOG_LEVEL, name: 'agentq-worker' });
  if (!env.DATABASE_URL || !env.REDIS_URL) {
    logger.fatal('A separate worker process needs DATABASE_URL (PostgreSQL) and REDIS_URL; use `npm start` for the all-in-one mode');
    process.exit(1);
  }
  const database = await createDb({ url: env.DATABASE_URL });
  const redis = createWorkerRedis(env.REDIS_URL);
  await checkEvictionPolicy(redis, logger);
  const queues = createQueues(redis, env.QUEUE_PREFIX);
  const pool = startWorkers(
    processors,
    { db: database.db, redis, queues, logger, allowPrivateNetworks: env.FETCH_ALLOW_PRIVATE_NETWORKS },
    { connection: redis, prefix: env.QUEUE_PREFIX, concurrency: env.WORKER_CONCURRENCY },
  );
  logger.info({ queues: pool.workers.map((worker) => worker.name), concurrency: env.WORKER_CONCURRENCY }, 'worker started');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker stopping');
    const { timedOut } = await pool.close(env.WORKER_SHUTDOWN_DEADLINE_MS);
    await queues.close().catch(() => {});
    redis.disconnect();
    await database.close().catch(() => {});
    logger.info({ timedOut }, 'worker stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

await main();
