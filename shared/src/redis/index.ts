import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { coalesceWrites } from './coalesce-writes';
import { isClusterTarget, parseClusterTarget, type RedisTarget } from './target';

export * from './keys';
export * from './pubsub';
export * from './scripts';
export * from './target';

/**
 * Opens a single-server connection or, for a `redis-cluster://` target, a Cluster client. A
 * Cluster answers every command agentq sends the way one server does (keys used together share
 * a hash tag, see keys.ts), and BullMQ takes either, so callers keep the `Redis` type. Either way
 * the commands of one pass of the event loop leave in one socket write (coalesceWrites).
 */
export function openRedis(target: RedisTarget, options: RedisOptions & { shardedSubscribers?: boolean } = {}): Redis {
  const { shardedSubscribers, ...rest } = options;
  options = rest;
  if (!isClusterTarget(target)) return coalesceWrites(new Redis(target, options));
  const { nodes, username, password, tls } = parseClusterTarget(target);
  const { enableOfflineQueue, lazyConnect, retryStrategy: _nodeRetry, ...nodeOptions } = options;
  const cluster = new Cluster(nodes, {
    redisOptions: { ...nodeOptions, username, password, ...(tls ? { tls: {} } : {}) },
    enableOfflineQueue: enableOfflineQueue ?? true,
    lazyConnect,
    // One connection per master for SSUBSCRIBE (run channels, see pubsub.ts), re-made on failover.
    shardedSubscribers: shardedSubscribers ?? false,
    // During a failover the cluster answers CLUSTERDOWN (every slot, with the default
    // cluster-require-full-coverage) until a replica is promoted: node-timeout plus an election,
    // seconds. Connections that retry forever (workers, subscribers: maxRetriesPerRequest null)
    // wait out ~50 s of that; request-path connections give up after ~5 s and the API answers 503.
    retryDelayOnFailover: 300,
    retryDelayOnClusterDown: 500,
    retryDelayOnTryAgain: 100,
    clusterRetryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    slotsRefreshTimeout: 2000,
    maxRedirections: options.maxRetriesPerRequest === null ? 100 : 10,
  });
  return coalesceWrites(cluster) as unknown as Redis;
}

/** Whether a connection is a Redis Cluster client (BullMQ and our key layout care, nothing else does). */
export function isClusterConnection(redis: Redis): boolean {
  return (redis as unknown as { isCluster?: boolean }).isCluster === true;
}

/**
 * Connection for BullMQ workers and blocking commands: retries forever, as BullMQ requires
 * (`maxRetriesPerRequest: null`), so a Redis blip pauses work instead of failing jobs.
 */
export function createWorkerRedis(url: RedisTarget, options: RedisOptions = {}): Redis {
  return openRedis(url, { maxRetriesPerRequest: null, enableReadyCheck: false, ...options });
}

/** Subscriber connection (run event hub): retries forever like a worker's; sharded on a cluster. */
export function createSubscriberRedis(url: RedisTarget, options: RedisOptions = {}): Redis {
  return openRedis(url, { maxRetriesPerRequest: null, enableReadyCheck: false, shardedSubscribers: true, ...options });
}

/**
 * Connection for request handlers: fails fast, so a Redis outage answers 503 instead of hanging.
 * Commands are not queued while disconnected.
 */
export function createApiRedis(url: RedisTarget, options: RedisOptions = {}): Redis {
  return openRedis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    commandTimeout: 5000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    ...options,
  });
}

/** BullMQ loses jobs when Redis may evict keys; warn unless the policy is `noeviction`. */
export async function checkEvictionPolicy(redis: Redis, logger: Pick<Logger, 'warn'>): Promise<string | undefined> {
  try {
    const reply = (await redis.config('GET', 'maxmemory-policy')) as string[];
    const policy = reply[1];
    if (policy && policy !== 'noeviction') {
      logger.warn({ policy }, `Redis maxmemory-policy is "${policy}"; set it to "noeviction" or queued jobs can be evicted`);
    }
    return policy;
  } catch {
    // CONFIG may be disabled on managed Redis; nothing to check then.
    return undefined;
  }
}

/** Resolves once the connection is ready, or rejects after `timeoutMs`. */
export async function waitForRedis(redis: Redis, timeoutMs = 5000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}
