import { listWorkerHeartbeats } from '@agentq/shared/queues';
import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import type { AppEnv } from '../deps';

async function probe(check: () => Promise<unknown>, timeoutMs = 2000): Promise<{ ok: boolean; latencyMs: number; error?: string }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

export const healthRoutes = new Hono<AppEnv>()
  .get('/health', describeRoute({ tags: ['health'], summary: 'Liveness: the process answers' }), (c) => c.json({ status: 'ok' }))
  .get(
    '/ready',
    describeRoute({
      tags: ['health'],
      summary: 'Readiness: PostgreSQL and Redis answer (these decide 200/503); also reports worker processes with a recent heartbeat',
      description:
        'The status code depends only on the database and Redis: an API with no worker online still accepts runs (they wait in the queue), ' +
        'and an API started before its workers must not be taken out of rotation. `workers.ok` is for alerting.',
    }),
    async (c) => {
      let workerCount = 0;
      const [database, redis, workerProbe] = await Promise.all([
        probe(() => c.get('db').execute(sql`select 1`)),
        probe(() => c.get('redis').ping()),
        probe(async () => {
          workerCount = (await listWorkerHeartbeats(c.get('redis'), c.get('queues').prefix)).length;
        }),
      ]);
      const ready = database.ok && redis.ok;
      const workers = { ok: workerProbe.ok && workerCount > 0, count: workerCount, ...(workerProbe.error ? { error: workerProbe.error } : {}) };
      return c.json({ status: ready ? 'ready' : 'unavailable', checks: { database, redis }, workers }, ready ? 200 : 503);
    },
  );
