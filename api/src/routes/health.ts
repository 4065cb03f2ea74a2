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
  .get('/ready', describeRoute({ tags: ['health'], summary: 'Readiness: PostgreSQL and Redis answer' }), async (c) => {
    const [database, redis] = await Promise.all([probe(() => c.var.db.execute(sql`select 1`)), probe(() => c.var.redis.ping())]);
    const ready = database.ok && redis.ok;
    return c.json({ status: ready ? 'ready' : 'unavailable', checks: { database, redis } }, ready ? 200 : 503);
  });
