import type { Database } from '@agentq/shared/db';
import type { Logger } from '@agentq/shared/logger';
import { createQueues, defineJobOutcomeCommands, startWorkerHeartbeat } from '@agentq/shared/queues';
import { createWorkerRedis } from '@agentq/shared/redis';
import { defineRunStreamCommands } from '@agentq/shared/run-stream';
import { createEmailSender, loadAgentConfig, startConfigCache, WorkerStoppingError, type SmtpSettings } from '@agentq/shared/services';
import { disposeToolTypes, warmToolTypes } from '@agentq/shared/tools';
import { RunControl } from './agent/run-control';
import type { WorkerDeps } from './processor';
import { processors } from './processors';
import { startReconciler } from './reconciler';
import { startWorkers, type WorkerPool } from './worker';

export type WorkerRuntimeOptions = {
  db: Database;
  redisUrl: string;
  prefix: string;
  appSecret: string;
  approvalTimeoutMs?: number;
  modelStallTimeoutMs?: number;
  /** 0 turns the reconciler off (tests that drive it by hand). */
  reconcileIntervalMs?: number;
  logger: Logger;
  concurrency: number;
  allowPrivateNetworks: boolean;
  mcpStdioCommands?: string[];
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Opens the database pool's connections (DbHandle.warm), part of the warm-up. */
  warmDatabase?: () => Promise<void>;
  /** SMTP_* (smtpSettingsFromEnv): where account emails go; absent: none are sent. */
  smtp?: SmtpSettings;
};

/** Connections, cancel control and one Worker per catalog queue: what a worker process runs. */
export function startWorkerRuntime(options: WorkerRuntimeOptions): {
  pool: WorkerPool;
  deps: WorkerDeps;
  /** Settles once the config snapshot is loaded, tool sandboxes are started and the database pool is open (never rejects). */
  ready: Promise<void>;
  close: (deadlineMs: number) => Promise<{ timedOut: boolean }>;
} {
  const redis = createWorkerRedis(options.redisUrl);
  redis.on('error', (error) => options.logger.debug({ err: error }, 'worker redis error'));
  // Run events and job results go over a connection of their own: the runs' flushes on one tick of
  // the publisher's grid and the job outcomes of one pass of the event loop leave in one socket
  // write, apart from BullMQ's commands (every connection coalesces its writes, coalesceWrites).
  const streams = createWorkerRedis(options.redisUrl);
  defineRunStreamCommands(streams);
  defineJobOutcomeCommands(streams);
  streams.on('error', (error) => options.logger.debug({ err: error }, 'worker redis error'));
  const subscriber = createWorkerRedis(options.redisUrl);
  subscriber.on('error', () => {});
  const queues = createQueues(redis, options.prefix);
  // Models, agents and tools are read through a per-process cache that other processes' changes invalidate.
  const configSubscriber = createWorkerRedis(options.redisUrl);
  configSubscriber.on('error', () => {});
  const configCache = startConfigCache(options.db, {
    publisher: redis,
    subscriber: configSubscriber,
    prefix: options.prefix,
    onError: (error) => options.logger.warn({ err: error }, 'config cache: invalidation not delivered'),
  });
  // Cold start: load what the first runs need before they arrive (the config snapshot, tool sandboxes, database connections).
  const warmed = Promise.allSettled([configCache.then(() => loadAgentConfig(options.db)), warmToolTypes(), options.warmDatabase?.()]);
  const deps: WorkerDeps = {
    db: options.db,
    redis: streams,
    queues,
    logger: options.logger,
    allowPrivateNetworks: options.allowPrivateNetworks,
    control: new RunControl(subscriber, options.prefix),
    email: options.smtp && createEmailSender(options.smtp),
    config: { prefix: options.prefix, appSecret: options.appSecret, approvalTimeoutMs: options.approvalTimeoutMs ?? 10 * 60_000, modelStallTimeoutMs: options.modelStallTimeoutMs, mcpStdioCommands: options.mcpStdioCommands ?? [] },
  };
  const pool = startWorkers(processors, deps, {
    connection: redis,
    prefix: options.prefix,
    concurrency: options.concurrency,
    lockDurationMs: options.lockDurationMs,
    stalledIntervalMs: options.stalledIntervalMs,
  });
  const heartbeat = startWorkerHeartbeat(redis, options.prefix, { concurrency: options.concurrency, queues: pool.workers.map((worker) => worker.name) });
  const reconciler = options.reconcileIntervalMs === 0 ? undefined : startReconciler(options.db, queues, options.logger, options.reconcileIntervalMs ?? 60_000, { redis });
  return {
    pool,
    deps,
    ready: warmed.then(() => {}),
    close: async (deadlineMs) => {
      reconciler?.stop();
      await heartbeat.stop();
      const outcome = await pool.close(deadlineMs, { onDeadline: () => deps.control.abortAll(new WorkerStoppingError()) });
      await deps.control.close();
      deps.email?.close();
      await warmed;
      await disposeToolTypes();
      await (await configCache).close();
      configSubscriber.disconnect();
      await queues.close().catch(() => {});
      redis.disconnect();
      streams.disconnect();
      return outcome;
    },
  };
}
