import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Connection for BullMQ workers and blocking commands: retries forever, as BullMQ requires
 * (`maxRetriesPerRequest: null`), so a Redis blip pauses work instead of failing jobs.
 */
export function createWorkerRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: false, ...options });
}

/**
 * Connection for request handlers: fails fast, so a Redis outage answers 503 instead of hanging.
 * Commands are not queued while disconnected.
 */
export function createApiRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, {
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
