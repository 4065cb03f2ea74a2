import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { bearerToken } from './auth';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined; // "null" (sandboxed frames, privacy redirects) or garbage: never ours
  }
}

/** Whether a browser sent this write from a page of another site (or of another host of ours). */
function isForeignWrite(c: Context<AppEnv>): boolean {
  const origin = c.req.header('origin');
  if (origin !== undefined) {
    const originHost = hostOf(origin);
    if (!originHost) return true;
    const host = c.req.header('x-forwarded-host') ?? c.req.header('host');
    const publicOrigin = c.get('config').publicOrigin;
    return originHost !== host && !(publicOrigin && hostOf(publicOrigin) === originHost);
  }
  // No Origin: a program, or an old browser; Fetch Metadata still tells a browser's cross-site request apart.
  const site = c.req.header('sec-fetch-site');
  return site === 'cross-site' || site === 'same-site';
}

/**
 * Cross-site request forgery guard for every write a browser could be tricked into sending:
 * any non-Bearer request (authenticated by the session cookie, or signing in) must come from our
 * own origin. Browsers always send `Origin` on such writes. A Bearer request is judged by its token
 * alone (`identify` ignores its cookie), so no extra header can switch the guard off while the
 * cookie still authenticates.
 */
export const sameOriginWrites: MiddlewareHandler<AppEnv> = createMiddleware<AppEnv>(async function sameOriginWrites(c, next) {
  if (!SAFE_METHODS.has(c.req.method) && bearerToken(c) === undefined && isForeignWrite(c)) {
    throw new ApiError(403, 'cross_origin', 'Cross-origin request refused: send it from this site, or authenticate with an API token (Authorization: Bearer ...)');
  }
  await next();
});
