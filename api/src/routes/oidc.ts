import { createHash } from 'node:crypto';
import { safeNextPath, type SignInProvidersView, type SsoError } from '@agentq/shared/api-types';
import {
  recordAudit,
  savePendingSignIn,
  signInWithOidc,
  takePendingSignIn,
  PENDING_SIGN_IN_TTL_SECONDS,
  type OidcClaims,
} from '@agentq/shared/services';
import { type Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { describeRoute } from 'hono-openapi';
import type { AppEnv } from '../deps';
import { startBrowserSession } from '../security/browser-session';
import { clientAddress } from '../security/client-address';

/**
 * Single sign-on with OpenID Connect (authorization code + PKCE, `state`, `nonce`). The start
 * keeps the PKCE verifier and nonce in Redis under the state (one use, 10 minutes) and binds the
 * state to this browser with a cookie, so a callback only completes in the browser that started it
 * (no login CSRF) and only once (no replay). The provider does the person's MFA: no TOTP here.
 */

/**
 * The browser's half of a started sign-in: the state, HttpOnly, sent back only to the callback.
 * One cookie per sign-in, named after its state, so two tabs that start one each both complete.
 */
export const oidcStateCookie = (state: string) => `aq_oidc_state_${createHash('sha256').update(state).digest('hex').slice(0, 16)}`;
const STATE_COOKIE_PATH = '/api/auth/oidc';
export const OIDC_START_PATH = '/api/auth/oidc/start';

/** A provider's `error` as far as it is safe to log: an OAuth error code, nothing free-form. */
const OAUTH_ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

export const oidcRoutes = new Hono<AppEnv>()
  .get(
    '/providers',
    describeRoute({ tags: ['auth'], summary: 'The ways to sign in besides a password, for the sign-in page: `{ oidc: { displayName, startPath } | null, signUp: "open" | "approval" | null, passwordReset, emailVerification }`' }),
    (c) => {
      const sso = c.get('oidc');
      const view: SignInProvidersView = { oidc: sso ? { displayName: sso.settings.displayName, startPath: OIDC_START_PATH } : null, signUp: c.get('config').signUp?.mode ?? null, passwordReset: Boolean(c.get('config').email), emailVerification: Boolean(c.get('config').email?.verifySignUps && c.get('config').signUp) };
      return c.json(view);
    },
  )
  .get(
    '/oidc/start',
    describeRoute({ tags: ['auth'], summary: 'Single sign-on: redirects to the OpenID provider; `?next=/path` is where to land afterwards (same-origin paths only)' }),
    async (c) => {
      const next = safeNextPath(c.req.query('next'));
      const sso = c.get('oidc');
      if (!sso) return failRedirect(c, 'not_configured', next);
      let request;
      try {
        request = await sso.authorizationRequest();
        await savePendingSignIn(c.get('redis'), c.get('queues').prefix, request.state, { codeVerifier: request.codeVerifier, nonce: request.nonce, next });
      } catch (error) {
        c.get('logger').warn({ requestId: c.get('requestId'), err: describe(error) }, 'SSO sign-in could not start: the provider (discovery) or Redis is unreachable');
        return failRedirect(c, 'unavailable', next);
      }
      setCookie(c, oidcStateCookie(request.state), request.state, {
        httpOnly: true,
        // Lax: the provider's redirect back is a top-level GET from another site, which Lax lets through.
        sameSite: 'Lax',
        secure: c.get('config').secureCookies,
        path: STATE_COOKIE_PATH,
        maxAge: PENDING_SIGN_IN_TTL_SECONDS,
      });
      return c.redirect(request.url.href, 302);
    },
  )
  .get(
    '/oidc/callback',
    describeRoute({ tags: ['auth'], summary: 'Single sign-on: where the OpenID provider sends the browser back; sets the session cookie and redirects to `next`, or to /login?sso_error=<code>' }),
    async (c) => {
      const sso = c.get('oidc');
      if (!sso) return failRedirect(c, 'not_configured');
      const state = c.req.query('state');
      const cookieState = state ? getCookie(c, oidcStateCookie(state)) : undefined;
      if (state) deleteCookie(c, oidcStateCookie(state), { path: STATE_COOKIE_PATH });
      // Only the browser that started this sign-in holds its state; the pending entry is spent either way.
      const pending = state && cookieState === state ? await takePendingSignIn(c.get('redis'), c.get('queues').prefix, state) : null;
      const providerError = c.req.query('error');
      if (providerError !== undefined) {
        return refuse(c, 'provider_error', { next: pending?.next, details: { error: OAUTH_ERROR_CODE.test(providerError) ? providerError : 'unrecognised' } });
      }
      if (!state || !pending) return refuse(c, 'state_mismatch', { details: { state: !state ? 'missing' : cookieState !== state ? 'not this browser' : 'expired or used' } });

      // The callback as the provider addressed it (PUBLIC_ORIGIN), whatever Host reached us: the token
      // request must repeat that redirect_uri exactly.
      const callbackUrl = new URL(sso.settings.redirectUri);
      callbackUrl.search = new URL(c.req.url).search;
      const redemption = await sso.redeemCode(callbackUrl, { state, nonce: pending.nonce, codeVerifier: pending.codeVerifier });
      if (!redemption.ok) return refuse(c, redemption.reason, { next: pending.next, details: { error: redemption.detail } });

      const outcome = await signInWithOidc(c.get('db'), sso.settings.policy, redemption);
      if (!outcome.ok) return refuse(c, outcome.reason, { next: pending.next, claims: redemption.claims, userId: outcome.userId });

      const { user } = outcome;
      await startBrowserSession(c, user.id);
      await recordAudit(c.get('db'), {
        actorUserId: user.id,
        action: 'auth.sign-in',
        targetType: 'user',
        targetId: user.id,
        details: {
          method: 'oidc',
          issuer: redemption.issuer,
          clientAddress: clientAddress(c),
          ...(outcome.created && { created: true }),
          ...(outcome.linked && { linked: true }),
          ...(outcome.promoted && { promoted: true }),
          ...(outcome.demoted && { demoted: true }),
        },
      });
      c.get('logger').info({ requestId: c.get('requestId'), userId: user.id, created: outcome.created, linked: outcome.linked }, 'signed in with SSO');
      return c.redirect(pending.next, 302);
    },
  );

/** A failed SSO sign-in: logged, audited (`auth.sign-in-failed` with the reason), and sent to the login page to explain. */
async function refuse(
  c: Context<AppEnv>,
  reason: SsoError,
  context: { next?: string; claims?: OidcClaims; userId?: string; details?: Record<string, unknown> },
): Promise<Response> {
  const address = clientAddress(c);
  const { claims, userId } = context;
  // Name what the log can: the account, else the email the provider gave, else its subject.
  const target = userId
    ? { targetType: 'user', targetId: userId }
    : claims?.email
      ? { targetType: 'email', targetId: claims.email }
      : claims
        ? { targetType: 'oidc-subject', targetId: claims.sub }
        : { targetType: 'oidc', targetId: c.get('oidc')?.settings.issuer.href ?? 'unconfigured' };
  c.get('logger').warn({ requestId: c.get('requestId'), reason, clientAddress: address, ...target, ...context.details }, 'SSO sign-in failed');
  await recordAudit(c.get('db'), { actorUserId: null, action: 'auth.sign-in-failed', ...target, details: { method: 'oidc', reason, clientAddress: address, ...context.details } });
  return failRedirect(c, reason, context.next);
}

/** `/login?sso_error=<code>`, keeping where the person was going for the next try. */
function failRedirect(c: Context<AppEnv>, reason: SsoError, next?: string): Response {
  const query = new URLSearchParams({ sso_error: reason });
  if (next && next !== safeNextPath(null)) query.set('next', next);
  return c.redirect(`/login?${query}`, 302);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
