import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import type { AppMetrics } from '../operations/metrics';

function sameSecret(given: string, expected: string): boolean {
  // Hashing first makes the comparison constant-time whatever the lengths.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Prometheus may scrape with `Authorization: Bearer <METRICS_TOKEN>`; otherwise an admin session or admin API token. */
const metricsAccess = createMiddleware<AppEnv>(async function metricsAccess(c, next) {
  const token = c.get('config').metricsToken;
  const header = c.req.header('authorization');
  if (token && header?.toLowerCase().startsWith('bearer ') && sameSecret(header.slice(7).trim(), token)) return next();
  const user = c.get('user');
  if (!user) throw new ApiError(401, 'unauthorized', 'Send Authorization: Bearer <METRICS_TOKEN>, or sign in as an administrator');
  if (user.role !== 'admin') throw new ApiError(403, 'forbidden', 'Metrics are for administrators');
  return next();
});

/** GET /metrics: Prometheus text format (mounted outside /api, where scrapers expect it). */
export function metricsRoutes(metrics: AppMetrics) {
  return new Hono<AppEnv>().get('/', metricsAccess, async (c) => {
    const body = await metrics.render();
    return c.body(body, 200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
  });
}
