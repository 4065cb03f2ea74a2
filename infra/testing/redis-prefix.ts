import { Redis } from 'ioredis';

/** Removes every key matching a SCAN pattern from the Redis at `redisUrl`. */
export async function dropRedisKeys(redisUrl: string, match: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000, retryStrategy: () => null });
  try {
    await redis.connect();
    for await (const keys of redis.scanStream({ match, count: 1000 })) if ((keys as string[]).length) await redis.unlink(...(keys as string[]));
  } finally {
    redis.disconnect();
  }
}

/**
 * Removes every key under a stack's queue prefix (its jobs, events, run streams and results): a
 * stopped stack's database is dropped, and its Redis keys go with it, so runs of the tests and the
 * benchmarks do not pile up in the machine's shared Redis.
 */
export const dropRedisPrefix = (redisUrl: string, prefix: string): Promise<void> => dropRedisKeys(redisUrl, `${prefix}:*`);
