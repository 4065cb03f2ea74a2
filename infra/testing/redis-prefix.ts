import { Redis } from 'ioredis';

/**
 * Removes every key under a stack's queue prefix (its jobs, events, run streams and results): a
 * stopped stack's database is dropped, and its Redis keys go with it, so runs of the tests and the
 * benchmarks do not pile up in the machine's shared Redis.
 */
export async function dropRedisPrefix(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000, retryStrategy: () => null });
  let removed = 0;
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) removed += await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return removed;
}
