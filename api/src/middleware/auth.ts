import { resolveApiToken, resolveSession } from '@agentq/shared/services';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import type { AppEnv, AuthUser } from '../deps';
import { ApiError } from '../errors';

export const SESSION_COOKIE = 'aq_session';

/** Identifies the caller from `Authorization: Bearer` or the session cookie; never rejects by itself. */
export const identify: MiddlewareHandler<AppEnv> = createMiddleware<AppEnv>(async function identify(c, next) {
  const header = c.req.header('authorization');
  let user: AuthUser | null = null;
  if (header?.toLowerCase().startsWith('bearer ')) {
    user = await resolveApiToken(c.var.db, header.slice(7).trim());
  } else {
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie) user = await resolveSession(c.var.db, cookie);
  }
  c.set('user', user);
  await next();
});

/** 401 unless someone is signed in. */
export const requireUser: MiddlewareHandler<AppEnv> = createMiddleware<AppEnv>(async function requireUser(c, next) {
  if (!c.var.user) throw new ApiError(401, 'unauthorized', 'Sign in or send an API token (Authorization: Bearer ...)');
  await next();
});

/** 401 when anonymous, 403 for a signed-in non-admin. */
export const requireAdmin: MiddlewareHandler<AppEnv> = createMiddleware<AppEnv>(async function requireAdmin(c, next) {
  if (!c.var.user) throw new ApiError(401, 'unauthorized', 'Sign in or send an API token (Authorization: Bearer ...)');
  if (c.var.user.role !== 'admin') throw new ApiError(403, 'forbidden', 'This requires an administrator');
  await next();
});

/** The signed-in user inside a handler behind `requireUser`. */
export function currentUser(c: Context<AppEnv>): AuthUser {
  const user = c.var.user;
  if (!user) throw new ApiError(401, 'unauthorized', 'Not signed in');
  return user;
}
