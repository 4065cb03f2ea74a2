import type { Redis } from 'ioredis';

/** At most `max` uses per `windowSeconds`, counted from the window's first use. */
export type RateLimit = { max: number; windowSeconds: number };

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

// A fixed window: the first use sets the expiry, so retries cannot stretch a window.
const COUNT_USE = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2] or 1)
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { count, ttl }`;

/**
 * Counts `uses` (one unless told) under `key` in a fixed window of `windowMs` (one key per call, so it
 * also works when keys live in different cluster slots); answers the count so far and the window's time left.
 */
export async function countInWindow(redis: Redis, key: string, windowMs: number, uses = 1): Promise<{ count: number; ttlMs: number }> {
  const [count, ttlMs] = (await redis.eval(COUNT_USE, 1, key, windowMs, uses)) as [number, number];
  return { count, ttlMs };
}

/**
 * Counts `uses` (one unless told) of `action` by `userId` in Redis (so the limit holds across API
 * processes) and says whether it is within the limit.
 * @example const decision = await takeRateLimit(redis, prefix, 'transcriptions', user.id, { max: 10, windowSeconds: 60 });
 */
export async function takeRateLimit(redis: Redis, prefix: string, action: string, userId: string, limit: RateLimit, uses = 1): Promise<RateDecision> {
  const { count, ttlMs } = await countInWindow(redis, `${prefix}:rate:${action}:${userId}`, limit.windowSeconds * 1000, uses);
  if (count <= limit.max) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
}
