import { resolveApiToken, resolveSessionCredential, type Asker } from '@agentq/shared/services';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import type { AppEnv, AuthUser } from '../deps';
import { ApiError } from '../errors';

export const SESSION_COOKIE = 'aq_session';

/** The API token of an `Authorization: Bearer` header, if the request carries one. */
export function bearerToken(c: Context): string | undefined {
  const header = c.req.header('authorization');
  return header && /^bearer\s/i.test(header) ? header.slice(7).trim() : undefined;
}

/**
 * Identifies the caller; never rejects by itself. A request with a Bearer token is judged by the
 * token alone (its cookie is ignored); any other request by its session cookie, whatever other
 * headers it carries, which is why the same-origin guard looks at exactly the same thing. A
 * session's "last active" is noted after the response (SessionActivity), never for a token.
 */
export const identify: MiddlewareHandler<AppEnv> = createMiddleware<AppEnv>(async function identify(c, next) {
  const token = bearerToken(c);
  if (token !== undefined) {
    const user = await resolveApiToken(c.get('db'), token);
    c.set('credential', user ? { kind: 'api-token' } : null);
    c.set('user', user);
    await next();
    return;
  }
  const cookie = getCookie(c, SESSION_COOKIE);
  const session = cookie ? await resolveSessionCredential(c.get('db'), cookie) : null;
  c.set('credential', session && cookie ? { kind: 'session', token: cookie, sessionId: session.sessionId } : null);
  c.set('user', session?.user ?? null);
  await next();
  const activity = c.get('sessionActivity');
  if (session && activity.claim(session.sessionId, session.lastSeenAt)) activity.recordLater(c.get('db'), c.get('logger'), session.sessionId);
});

/** 401 unless someone is signed in. */
export const requireUser: MiddlewareHandler<AppEnv> = createMiddleware<AppEnv>(async function requireUser(c, next) {
  if (!c.get('user')) throw new ApiError(401, 'unauthorized', 'Sign in or send an API token (Authorization: Bearer ...)');
  await next();
});

/** 401 when anonymous, 403 for a signed-in non-admin. */
export const requireAdmin: MiddlewareHandler<AppEnv> = createMiddleware<AppEnv>(async function requireAdmin(c, next) {
  const user = c.get('user');
  if (!user) throw new ApiError(401, 'unauthorized', 'Sign in or send an API token (Authorization: Bearer ...)');
  if (user.role !== 'admin') throw new ApiError(403, 'forbidden', 'This requires an administrator');
  await next();
});

/** The signed-in user inside a handler behind `requireUser`. */
export function currentUser(c: Context<AppEnv>): AuthUser {
  const user = c.get('user');
  if (!user) throw new ApiError(401, 'unauthorized', 'Not signed in');
  return user;
}

/** The signed-in user as a run's asker (chat.ts `Asker`): from the cached user with their group ids, so starting a run reads no user row. */
export function currentAsker(c: Context<AppEnv>): Asker {
  const user = currentUser(c);
  return { userId: user.id, userInstructions: user.customInstructions, isAdmin: user.role === 'admin', groupIds: user.groupIds };
}
