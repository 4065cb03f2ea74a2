import { enqueue } from '@agentq/shared/queues';
import { inEmailDomains, signUpInputSchema, signUpUser } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import type { AppEnv } from '../deps';
import { ApiError, validationFailed } from '../errors';
import { startBrowserSession } from '../security/browser-session';
import { clientAddress } from '../security/client-address';
import { takeRateLimit, type RateLimit } from '../security/rate-limit';
import { validate } from '../validate';

/** Sign-ups from one client address: enough for a family behind one router, too few to mass-produce accounts. */
export const DEFAULT_SIGN_UP_RATE_LIMIT: RateLimit = { max: 5, windowSeconds: 3600 };

/**
 * People making their own account on the sign-in page (SIGNUP): `open` signs them in at once;
 * `approval` keeps the account out until an admin approves it on Admin → Users. Off by default, when
 * only admins (or single sign-on) add people.
 */
export const signUpRoutes = new Hono<AppEnv>().post(
  '/sign-up',
  describeRoute({
    tags: ['auth'],
    summary: 'Make your own account (when SIGNUP allows it): 201 signed in, or 202 waiting for an admin\'s approval or for the person to follow the emailed verification link (`awaitingEmailVerification`)',
    description:
      '403 `sign_up_disabled` when the server does not take sign-ups; 400 with the issues for bad input or an email outside SIGNUP_EMAIL_DOMAINS; 409 for an email that has an account; 429 with Retry-After past 5 sign-ups an hour from one address.',
  }),
  validate('json', signUpInputSchema),
  async (c) => {
    const policy = c.get('config').signUp;
    if (!policy) throw new ApiError(403, 'sign_up_disabled', 'This server does not take sign-ups: ask an administrator for an account');
    const input = c.req.valid('json');
    if (!inEmailDomains(input.email, policy.emailDomains)) {
      throw validationFailed([{ path: ['email'], message: `Use an address at ${policy.emailDomains.join(', ')}` }], 'Sign-ups take email addresses of some domains only');
    }
    const address = clientAddress(c);
    const decision = await takeRateLimit(c.get('redis'), c.get('queues').prefix, 'sign-up', address, policy.rateLimit ?? DEFAULT_SIGN_UP_RATE_LIMIT);
    if (!decision.allowed) {
      c.header('retry-after', String(decision.retryAfterSeconds));
      throw new ApiError(429, 'rate_limited', 'Too many sign-ups from your network: try again later');
    }
    const awaitingApproval = policy.mode === 'approval';
    const verifyEmail = c.get('config').email?.verifySignUps ?? false;
    const user = await signUpUser(c.get('db'), input, { awaitingApproval, verifyEmail });
    c.get('logger').info({ requestId: c.get('requestId'), userId: user.id, clientAddress: address, awaitingApproval, verifyEmail }, 'signed up');
    if (verifyEmail) {
      // The link goes out from a worker; the person signs in once they follow it.
      await enqueue(c.get('queues'), 'accountEmails', 'account-email', { purpose: 'email-verification', email: user.email });
      return c.json({ user, awaitingApproval, awaitingEmailVerification: true }, 202);
    }
    if (awaitingApproval) return c.json({ user, awaitingApproval: true, awaitingEmailVerification: false }, 202);
    await startBrowserSession(c, user.id);
    return c.json({ user, awaitingApproval: false, awaitingEmailVerification: false }, 201);
  },
);
