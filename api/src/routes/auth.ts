import {
  authenticate,
  beginTwoFactorInputSchema,
  beginTwoFactorSetup,
  changeOwnPassword,
  changePasswordInputSchema,
  createApiToken,
  createApiTokenInputSchema,
  deleteSession,
  disableTwoFactor,
  disableTwoFactorInputSchema,
  enableTwoFactor,
  enableTwoFactorInputSchema,
  listApiTokens,
  listBrowserSessions,
  recordAudit,
  recoveryCodesLeft,
  regenerateRecoveryCodes,
  revokeApiToken,
  revokeBrowserSession,
  revokeOtherBrowserSessions,
  updateProfile,
  updateProfileInputSchema,
  verifySecondFactor,
  secondFactorCodeSchema,
} from '@agentq/shared/services';
import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { ApiError, notFound } from '../errors';
import { currentUser, requireUser, SESSION_COOKIE } from '../middleware/auth';
import { startBrowserSession } from '../security/browser-session';
import { clientAddress } from '../security/client-address';
import { beginLoginAttempt } from '../security/login-throttle';
import { validate } from '../validate';

const loginSchema = z.object({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(200),
  /** With two-factor sign-in on: the authenticator app's code, or a recovery code. */
  code: secondFactorCodeSchema.optional(),
});
const tokenIdSchema = z.object({ id: z.string().min(1).max(100) });
const sessionIdSchema = z.object({ id: z.string().min(1).max(100) });

/** The browser session a request came with, if it came with one (not an API token). */
function currentSessionId(c: Context<AppEnv>): string | undefined {
  const credential = c.get('credential');
  return credential?.kind === 'session' ? credential.sessionId : undefined;
}

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
    if (!user.emailVerified && c.get('config').email?.verifySignUps) {
      // The password was right: the person learns what to do (follow the emailed link, or ask for another).
      await attempt.succeeded();
      throw new ApiError(403, 'email_unverified', 'Confirm your email first: follow the link we emailed you, or ask for a new one');
    }
    if (user.awaitingApproval) {
      // The password was right: not a failed attempt, and the person learns why they wait.
      await attempt.succeeded();
      throw new ApiError(403, 'approval_pending', 'An administrator has not approved your account yet');
    }
    if (user.twoFactor) {
      const { code } = c.req.valid('json');
      if (!code) {
        // The password was right: asking for the code is a step, not a failed attempt.
        await attempt.succeeded();
        throw new ApiError(401, 'two_factor_required', 'Enter the code from your authenticator app (or a recovery code)');
      }
      const factor = await verifySecondFactor(c.get('db'), user.id, code, c.get('config').appSecret);
      if (!factor) {
        c.get('metrics').observeLoginFailure('invalid_credentials');
        c.get('logger').warn({ requestId: c.get('requestId'), email, clientAddress: address }, 'sign-in failed: wrong two-factor code');
        await recordAudit(c.get('db'), { actorUserId: null, action: 'auth.sign-in-failed', targetType: 'email', targetId: email.toLowerCase(), details: { clientAddress: address, reason: 'two-factor code' } });
        throw new ApiError(401, 'invalid_two_factor_code', 'That code is not right, or was used already: enter the current one');
      }
      if (factor === 'recovery') c.get('logger').info({ requestId: c.get('requestId'), userId: user.id }, 'signed in with a recovery code');
    }
    await attempt.succeeded();
    await recordAudit(c.get('db'), { actorUserId: user.id, action: 'auth.sign-in', targetType: 'user', targetId: user.id, details: { clientAddress: address, ...(user.twoFactor && { twoFactor: true }) } });
    await startBrowserSession(c, user.id);
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
  .get('/two-factor', describeRoute({ tags: ['auth'], summary: 'Your two-factor sign-in: whether it is on, and how many recovery codes are left' }), requireUser, async (c) => {
    const user = currentUser(c);
    return c.json({ enabled: user.twoFactor, recoveryCodesLeft: user.twoFactor ? await recoveryCodesLeft(c.get('db'), user.id) : 0 });
  })
  .post(
    '/two-factor/setup',
    describeRoute({ tags: ['auth'], summary: 'Start setting up two-factor sign-in (your password again): a new secret, as text and as the `otpauth://` URI an authenticator app scans; not in force until enabled' }),
    requireUser,
    validate('json', beginTwoFactorInputSchema),
    async (c) => c.json(await beginTwoFactorSetup(c.get('db'), currentUser(c).id, c.req.valid('json').password, c.get('config').appSecret)),
  )
  .post(
    '/two-factor/enable',
    describeRoute({ tags: ['auth'], summary: "Turn two-factor sign-in on with a first code from the app; answers ten recovery codes, shown this once" }),
    requireUser,
    validate('json', enableTwoFactorInputSchema),
    async (c) => c.json(await enableTwoFactor(c.get('db'), currentUser(c).id, c.req.valid('json').code, c.get('config').appSecret)),
  )
  .post(
    '/two-factor/recovery-codes',
    describeRoute({ tags: ['auth'], summary: 'New recovery codes in place of the old (a code from the app or a recovery code); shown this once' }),
    requireUser,
    validate('json', enableTwoFactorInputSchema),
    async (c) => c.json(await regenerateRecoveryCodes(c.get('db'), currentUser(c).id, c.req.valid('json').code, c.get('config').appSecret)),
  )
  .post(
    '/two-factor/disable',
    describeRoute({ tags: ['auth'], summary: 'Turn two-factor sign-in off: your password and a code (or a recovery code)' }),
    requireUser,
    validate('json', disableTwoFactorInputSchema),
    async (c) => {
      await disableTwoFactor(c.get('db'), currentUser(c).id, c.req.valid('json'), c.get('config').appSecret);
      return c.body(null, 204);
    },
  )
  .get(
    '/sessions',
    describeRoute({
      tags: ['auth'],
      summary: "Where you're signed in: your browser sessions (device from the User-Agent, client address, signed in, last active within ~5 minutes), `current: true` on this one; most recently active first; never a token",
    }),
    requireUser,
    async (c) => c.json({ items: await listBrowserSessions(c.get('db'), currentUser(c).id, currentSessionId(c)) }),
  )
  .delete(
    '/sessions/:id',
    describeRoute({ tags: ['auth'], summary: 'Sign one of your other sessions out, at once; 409 `current_session` for this one (sign out with POST /api/auth/logout)' }),
    requireUser,
    validate('param', sessionIdSchema),
    async (c) => {
      const revoker = { userId: currentUser(c).id, currentSessionId: currentSessionId(c), clientAddress: clientAddress(c) };
      const outcome = await revokeBrowserSession(c.get('db'), revoker, c.req.valid('param').id);
      if (outcome === 'not-found') throw notFound('Session');
      if (outcome === 'current') throw new ApiError(409, 'current_session', 'This is the session you are using: sign out with POST /api/auth/logout instead');
      return c.body(null, 204);
    },
  )
  .post(
    '/sessions/revoke-others',
    describeRoute({ tags: ['auth'], summary: 'Sign out all your other sessions (with an API token: all of them); answers `{ revoked }`, how many' }),
    requireUser,
    async (c) => {
      const revoker = { userId: currentUser(c).id, currentSessionId: currentSessionId(c), clientAddress: clientAddress(c) };
      return c.json({ revoked: await revokeOtherBrowserSessions(c.get('db'), revoker) });
    },
  )
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
