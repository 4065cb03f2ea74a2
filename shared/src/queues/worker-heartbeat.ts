import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { prefixedKey } from '../redis/keys';

/** What a worker process says about itself every few seconds. */
export type WorkerHeartbeat = {
  id: string;
  host: string;
  pid: number;
  /** Jobs each of its queues' Workers runs at once. */
  concurrency: number;
  queues: string[];
  startedAt: string;
  lastSeenAt: string;
};

export const WORKER_HEARTBEAT_INTERVAL_MS = 5_000;
/** A worker that missed about three beats is gone (crashed, paused, cut off from Redis). */
export const WORKER_HEARTBEAT_TTL_MS = 15_000;

/** All under the installation prefix: on a cluster (`{agentq}`) the MULTI below stays in one slot. */
const heartbeatKeys = (prefix: string) => ({
  /** Ids of workers that announced themselves; entries whose key expired are pruned on read. */
  index: prefixedKey(prefix, 'workers'),
  worker: (id: string) => prefixedKey(prefix, 'worker', id),
});

/**
 * Writes this process's heartbeat now and every `intervalMs` (a key with a TTL, so a dead worker
 * disappears by itself); `stop` removes it at once. A beat is skipped while the previous one is
 * still waiting on Redis, so an outage never piles up commands.
 * @example const heartbeat = startWorkerHeartbeat(redis, 'agentq', { concurrency: 8, queues: ['chat-turns'] });
 */
export function startWorkerHeartbeat(
  redis: Redis,
  prefix: string,
  info: { concurrency: number; queues: string[] },
  timing: { intervalMs?: number; ttlMs?: number } = {},
): { id: string; stop: () => Promise<void> } {
  const host = hostname();
  const id = `${host}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const keys = heartbeatKeys(prefix);
  const startedAt = new Date().toISOString();
  const ttlMs = timing.ttlMs ?? WORKER_HEARTBEAT_TTL_MS;
  let inFlight: Promise<unknown> | undefined;
  const beat = () => {
    if (inFlight) return;
    const heartbeat: WorkerHeartbeat = { id, host, pid: process.pid, ...info, startedAt, lastSeenAt: new Date().toISOString() };
    inFlight = redis
      .multi()
      .set(keys.worker(id), JSON.stringify(heartbeat), 'PX', ttlMs)
      .sadd(keys.index, id)
      .exec()
      .catch(() => {})
      .finally(() => {
        inFlight = undefined;
      });
  };
  beat();
  const timer = setInterval(beat, timing.intervalMs ?? WORKER_HEARTBEAT_INTERVAL_MS);
  timer.unref();
  return {
    id,
    stop: async () => {
      clearInterval(timer);
      // Bounded: with Redis unreachable the key simply expires.
      const remove = async () => {
        await inFlight;
        await redis.multi().del(keys.worker(id)).srem(keys.index, id).exec();
      };
      await Promise.race([remove().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    },
  };
}

/** Workers whose heartbeat has not expired, oldest first. */
export async function listWorkerHeartbeats(redis: Redis, prefix: string): Promise<WorkerHeartbeat[]> {
  const keys = heartbeatKeys(prefix);
  const ids = await redis.smembers(keys.index);
  if (ids.length === 0) return [];
  const values = await redis.mget(ids.map((id) => keys.worker(id)));
  const expired = ids.filter((_, index) => values[index] === null);
  if (expired.length > 0) await redis.srem(keys.index, ...expired);
  return values
    .filter((value): value is string => value !== null)
    .map((value) => JSON.parse(value) as WorkerHeartbeat)
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}
