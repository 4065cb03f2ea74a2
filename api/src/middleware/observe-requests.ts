import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { matchedRoutes } from 'hono/route';
import type { Context } from 'hono';
import type { AppEnv } from '../deps';
import type { AppMetrics } from '../operations/metrics';

/** Probes, scrapes and the queue board's own polling log at debug: at info they would drown the lines that matter. */
const QUIET_ROUTES = new Set(['/api/health', '/api/ready', '/metrics']);

function isQuiet(method: string, route: string): boolean {
  return QUIET_ROUTES.has(route) || (method === 'GET' && route.startsWith('/admin/queues/'));
}

/**
 * The route pattern that answered (`/api/runs/:id`), never the raw URL, so metric labels stay few.
 * A request only middleware saw (no route matched) is `unmatched`.
 */
export function routeLabel(c: Context): string {
  const route = matchedRoutes(c)[c.req.routeIndex];
  if (!route) return 'unmatched';
  if (route.method === 'ALL' && c.res.status === 404) return 'unmatched';
  return route.path;
}

/**
 * Logs every request once it is answered (method, route, status, duration, request id) and feeds
 * the HTTP metrics. Errors were already turned into responses by the error funnel.
 */
export function observeRequests(metrics: AppMetrics): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async function observeRequests(c, next) {
    const started = performance.now();
    c.header('x-request-id', c.get('requestId'));
    await next();
    const seconds = (performance.now() - started) / 1000;
    const route = routeLabel(c);
    const status = c.res.status;
    metrics.observeRequest({ method: c.req.method, route, status }, seconds);
    const line = { requestId: c.get('requestId'), method: c.req.method, route, path: c.req.path, status, durationMs: Math.round(seconds * 1000), userId: c.get('user')?.id };
    if (isQuiet(c.req.method, route)) c.get('logger').debug(line, 'request');
    else c.get('logger').info(line, 'request');
  });
}
