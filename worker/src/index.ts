import { createDb, databaseOptionsFromEnv } from '@agentq/shared/db';
import { getEnvOrExit } from '@agentq/shared/env';
import { createLogger, guardProcess } from '@agentq/shared/logger';
import { checkEvictionPolicy, createWorkerRedis, keyPrefixFor, redisTargetFromEnv } from '@agentq/shared/redis';
import { smtpSettingsFromEnv } from '@agentq/shared/services';
import { startWorkerRuntime } from './runtime';

/** Production worker process: any number of these share the queues. */
async function main() {
  const env = getEnvOrExit(['DATABASE_URL', 'REDIS_URL', 'APP_SECRET']);
  const logger = createLogger({ level: env.LOG_LEVEL, name: 'agentq-worker' });
  guardProcess(logger);
  const redisUrl = redisTargetFromEnv(env)!;
  const database = await createDb(databaseOptionsFromEnv(env));
  const probe = createWorkerRedis(redisUrl);
  await checkEvictionPolicy(probe, logger);
  probe.disconnect();
  const runtime = startWorkerRuntime({
    db: database.db,
    redisUrl,
    prefix: keyPrefixFor(redisUrl, env.QUEUE_PREFIX),
    appSecret: env.APP_SECRET!,
    approvalTimeoutMs: env.APPROVAL_TIMEOUT_MS,
    modelStallTimeoutMs: env.MODEL_STALL_TIMEOUT_MS,
    reconcileIntervalMs: env.RECONCILE_INTERVAL_MS,
    logger,
    concurrency: env.WORKER_CONCURRENCY,
    allowPrivateNetworks: env.FETCH_ALLOW_PRIVATE_NETWORKS,
    mcpStdioCommands: env.MCP_STDIO_COMMANDS,
    lockDurationMs: env.WORKER_LOCK_DURATION_MS,
    stalledIntervalMs: env.WORKER_STALLED_INTERVAL_MS,
    warmDatabase: database.warm,
    smtp: smtpSettingsFromEnv(env),
  });
  const starting = performance.now();
  void runtime.ready.then(() => logger.info({ ms: Math.round(performance.now() - starting) }, 'worker warm: config loaded, tool sandboxes running, database pool open'));
  logger.info({ queues: runtime.pool.workers.map((worker) => worker.name), concurrency: env.WORKER_CONCURRENCY }, 'worker started');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker stopping');
    const { timedOut } = await runtime.close(env.WORKER_SHUTDOWN_DEADLINE_MS);
    await database.close().catch(() => {});
    logger.info({ timedOut }, 'worker stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

await main();
