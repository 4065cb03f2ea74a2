import {
  authenticate,
  changeOwnPassword,
  changePasswordInputSchema,
  createApiToken,
  createApiTokenInputSchema,
  createSession,
  deleteSession,
  listApiTokens,
  recordAudit,
  revokeApiToken,
  SESSION_TTL_MS,
  updateProfile,
  updateProfileInputSchema,
} from '@agentq/shared/services';
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { currentUser, requireUser, SESSION_COOKIE } from '../middleware/auth';
import { clientAddress } from '../security/client-address';
import { beginLoginAttempt } from '../security/login-throttle';
import { validate } from '../validate';

const loginSchema = z.object({ email: z.string().trim().min(1).max(320), password: z.string().min(1).max(200) });
const tokenIdSchema = z.object({ id: z.string().min(1).max(100) });

export const authRoutes = new Hono<AppEnv>()
  .post('/login', describeRoute({ tags: ['auth'], summary: 'Sign in; sets the session cookie' }), validate('json', loginSchema), async (c) => {
    const { email, password } = c.req.valid('json');
    const address = clientAddress(c);
    const attempt = await beginLoginAttempt(c.get('redis'), c.get('queues').prefix, { email, address }, c.get('config').loginThrottle);
    if (!attempt.allowed) {
      c.get('metrics').observeLoginFailure('throttled');
      c.get('logger').warn({ requestId: c.get('requestId'), email, clientAddress: address, scope: attempt.scope, retryAfterSeconds: attempt.retryAfterSeconds }, 'sign-in throttled');
      c.header('retry-after', String(attempt.retryAfterSeconds));
      throw new ApiError(429, 'too_many_attempts', `Too many failed sign-ins. Try again in ${describeWait(attempt.retryAfterSeconds)}.`, {
        details: { retryAfterSeconds: attempt.retryAfterSeconds },
      });
    }
    const user = await authenticate(c.get('db'), email, password);
    if (!user) {
      c.get('metrics').observeLoginFailure('invalid_credentials');
      c.get('logger').warn({ requestId: c.get('requestId'), email, clientAddress: address }, 'sign-in failed: wrong email or password');
      await recordAudit(c.get('db'), { actorUserId: null, action: 'auth.sign-in-failed', targetType: 'email', targetId: email.toLowerCase(), details: { clientAddress: address } });
      throw new ApiError(401, 'invalid_credentials', 'Email or password is incorrect');
    }
    await attempt.succeeded();
    await recordAudit(c.get('db'), { actorUserId: user.id, action: 'auth.sign-in', targetType: 'user', targetId: user.id, details: { clientAddress: address } });
    const session = await createSession(c.get('db'), user.id);
    setCookie(c, SESSION_COOKIE, session.token, {
      httpOnly: true,
      sameSite: 'Lax',
      secure: c.get('config').secureCookies,
      path: '/',
      maxAge: Math.floor(SESSION_TTL_MS / 1000),
    });
    return c.json({ user });
  })
  .post('/logout', describeRoute({ tags: ['auth'], summary: 'Sign out; ends the session' }), async (c) => {
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie) await deleteSession(c.get('db'), cookie);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.body(null, 204);
  })
  .post(
    '/password',
    describeRoute({
      tags: ['auth'],
      summary: 'Change your password (needs the current one); ends your other sessions and revokes all your API tokens',
    }),
    requireUser,
    validate('json', changePasswordInputSchema),
    async (c) => {
      const credential = c.get('credential');
      const keep = credential?.kind === 'session' ? credential.token : undefined;
      const revoked = await changeOwnPassword(c.get('db'), currentUser(c).id, c.req.valid('json'), keep);
      return c.json({ revoked });
    },
  )
  .get(
    '/session',
    describeRoute({ tags: ['auth'], summary: 'Whether you are signed in: `{ user }`, null when not (200 either way, for a sign-in page to ask without an error)' }),
    (c) => c.json({ user: c.get('user') }),
  )
  .get('/me', describeRoute({ tags: ['auth'], summary: 'The signed-in user, with their custom instructions (only they see them)' }), requireUser, (c) => c.json({ user: currentUser(c) }))
  .patch('/me', describeRoute({ tags: ['auth'], summary: 'Change your own name, UI language or custom instructions (`customInstructions`, up to 4,000 characters, reach every chat run of yours; empty or null clears them)' }), requireUser, validate('json', updateProfileInputSchema), async (c) => {
    return c.json({ user: await updateProfile(c.get('db'), currentUser(c).id, c.req.valid('json')) });
  })
  .post('/tokens', describeRoute({ tags: ['auth'], summary: 'Create an API token (the secret is shown once)' }), requireUser, validate('json', createApiTokenInputSchema), async (c) => {
    const token = await createApiToken(c.get('db'), currentUser(c).id, c.req.valid('json'));
    return c.json(token, 201);
  })
  .get('/tokens', describeRoute({ tags: ['auth'], summary: 'List your API tokens (no secrets)' }), requireUser, async (c) => {
    return c.json({ items: await listApiTokens(c.get('db'), currentUser(c).id) });
  })
  .delete('/tokens/:id', describeRoute({ tags: ['auth'], summary: 'Revoke an API token' }), requireUser, validate('param', tokenIdSchema), async (c) => {
    await revokeApiToken(c.get('db'), currentUser(c).id, c.req.valid('param').id);
    return c.body(null, 204);
  });

function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
