import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery guard for cookie-authenticated writes: a browser always sends
 * `Origin` on such requests, and it must match the host the request was addressed to.
 * Bearer-token clients are programs, not browsers, and are not affected.
 */
export const sameOriginWrites: MiddlewareHandler<AppEnv> = createMiddleware<AppEnv>(async function sameOriginWrites(c, next) {
  const origin = c.req.header('origin');
  const usesCookie = !c.req.header('authorization') && (c.req.header('cookie') ?? '').includes('aq_session=');
  if (origin && usesCookie && !SAFE_METHODS.has(c.req.method)) {
    const host = c.req.header('x-forwarded-host') ?? c.req.header('host');
    let originHost: string | undefined;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = undefined;
    }
    if (!host || originHost !== host) throw new ApiError(403, 'cross_origin', 'Cross-origin request refused');
  }
  await next();
});
