import { hostname } from 'node:os';
import { getEnv } from '@agentq/shared/env';
import { listWorkerHeartbeats, WORKER_HEARTBEAT_TTL_MS } from '@agentq/shared/queues';
import { createApiRedis } from '@agentq/shared/redis';

/**
 * Container health check for a worker (`node worker/dist/health.js`): healthy when a worker on this
 * host has written its heartbeat within the heartbeat TTL. A worker that is wedged or cut off from
 * Redis stops beating, so the orchestrator restarts it.
 */
async function main(): Promise<number> {
  const env = getEnv();
  if (!env.REDIS_URL) {
    console.error('unhealthy: REDIS_URL is not set');
    return 1;
  }
  const redis = createApiRedis(env.REDIS_URL, { lazyConnect: true, retryStrategy: () => null });
  try {
    await redis.connect();
    const host = hostname();
    const beats = (await listWorkerHeartbeats(redis, env.QUEUE_PREFIX)).filter((beat) => beat.host === host);
    const fresh = beats.filter((beat) => Date.now() - Date.parse(beat.lastSeenAt) < WORKER_HEARTBEAT_TTL_MS);
    if (fresh.length === 0) {
      console.error(`unhealthy: no worker heartbeat from ${host} in the last ${WORKER_HEARTBEAT_TTL_MS / 1000} s`);
      return 1;
    }
    console.log(`healthy: ${fresh.map((beat) => `pid ${beat.pid} seen ${beat.lastSeenAt}`).join(', ')}`);
    return 0;
  } catch (error) {
    console.error(`unhealthy: ${(error as Error).message}`);
    return 1;
  } finally {
    redis.disconnect();
  }
}

process.exitCode = await main();
