import { emailRequestInputSchema, emailVerificationInputSchema, passwordResetInputSchema } from '@agentq/shared/api-types';
import { enqueue } from '@agentq/shared/queues';
import { resetPasswordWithToken, verifyEmailWithToken } from '@agentq/shared/services';
import { Hono, type Context } from 'hono';
import { describeRoute } from 'hono-openapi';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { clientAddress } from '../security/client-address';
import { takeRateLimit, type RateLimit } from '../security/rate-limit';
import { validate } from '../validate';

/** Emails asked for one address: enough to retry a lost one, too few to flood someone's inbox. */
export const DEFAULT_EMAIL_PER_ADDRESS_LIMIT: RateLimit = { max: 3, windowSeconds: 3600 };
/** Emails asked for from one client address, whatever addresses it names. */
export const DEFAULT_EMAIL_PER_CLIENT_LIMIT: RateLimit = { max: 10, windowSeconds: 3600 };

type Purpose = 'password-reset' | 'email-verification';

/**
 * Counts a request for an account email against both limits (per email address and per client
 * address); 429 with Retry-After past either. The address's limit counts whether or not an account
 * has it, so a 429 tells nothing about who has an account.
 */
async function takeEmailRateLimits(c: Context<AppEnv>, purpose: Purpose, email: string): Promise<void> {
  const limits = c.get('config').email?.rateLimits;
  const prefix = c.get('queues').prefix;
  const redis = c.get('redis');
  const address = clientAddress(c);
  for (const decision of [
    await takeRateLimit(redis, prefix, `${purpose}-email`, email, limits?.perAddress ?? DEFAULT_EMAIL_PER_ADDRESS_LIMIT),
    await takeRateLimit(redis, prefix, `${purpose}-client`, address, limits?.perClient ?? DEFAULT_EMAIL_PER_CLIENT_LIMIT),
  ]) {
    if (!decision.allowed) {
      c.header('retry-after', String(decision.retryAfterSeconds));
      c.get('logger').warn({ requestId: c.get('requestId'), purpose, clientAddress: address }, 'account email throttled');
      throw new ApiError(429, 'rate_limited', 'Too many emails asked for: try again later', { details: { retryAfterSeconds: decision.retryAfterSeconds } });
    }
  }
}

function requireEmail(c: Context<AppEnv>) {
  const email = c.get('config').email;
  if (!email) throw new ApiError(404, 'email_not_configured', 'This server sends no email: ask an administrator to reset your password');
  return email;
}

/** Queues the email; the same answer for every address, so nobody learns which have accounts. */
async function requestAccountEmail(c: Context<AppEnv>, purpose: Purpose, email: string): Promise<Response> {
  await takeEmailRateLimits(c, purpose, email);
  await enqueue(c.get('queues'), 'accountEmails', 'account-email', { purpose, email });
  c.get('logger').info({ requestId: c.get('requestId'), purpose, clientAddress: clientAddress(c) }, 'account email requested');
  return c.json({ accepted: true }, 202);
}

const INVALID_LINK_MESSAGE = 'This link does not work any more: it was used, has expired (links last an hour) or a newer email replaced it. Ask for a new one.';

/**
 * "Forgot password?" and sign-up email verification (services/email), when SMTP is configured:
 * each request answers 202 whether or not the address has an account; the worker mails the link.
 */
export const accountEmailRoutes = new Hono<AppEnv>()
  .post(
    '/password-reset/request',
    describeRoute({
      tags: ['auth'],
      summary: 'Forgot password: email a single-use link (one hour) to set a new password; 202 whatever the address',
      description:
        "Always 202 for a well-formed address, whether or not it has an account (single sign-on-only and disabled accounts get no email). A new link replaces older ones. 429 with Retry-After past 3 requests an hour for one address or 10 from one client. 404 `email_not_configured` when the server sends no email.",
    }),
    validate('json', emailRequestInputSchema),
    async (c) => {
      requireEmail(c);
      return requestAccountEmail(c, 'password-reset', c.req.valid('json').email);
    },
  )
  .post(
    '/password-reset',
    describeRoute({
      tags: ['auth'],
      summary: "Set a new password with the emailed link's token; signs the account out everywhere and revokes its API tokens",
      description: '204 on success. 400 `invalid_link` for a token that is unknown, used, expired or replaced by a newer email; 400 with issues for a password that breaks the rules.',
    }),
    validate('json', passwordResetInputSchema),
    async (c) => {
      requireEmail(c);
      const address = clientAddress(c);
      const outcome = await resetPasswordWithToken(c.get('db'), c.req.valid('json'), { clientAddress: address });
      if (!outcome) throw new ApiError(400, 'invalid_link', INVALID_LINK_MESSAGE);
      c.get('logger').info({ requestId: c.get('requestId'), userId: outcome.userId, revoked: outcome.revoked, clientAddress: address }, 'password reset by email link');
      return c.body(null, 204);
    },
  )
  .post(
    '/email-verification/resend',
    describeRoute({
      tags: ['auth'],
      summary: 'Email a new verification link to an account that has not confirmed its address yet; 202 whatever the address',
      description: 'The same limits and answers as the password reset request.',
    }),
    validate('json', emailRequestInputSchema),
    async (c) => {
      requireEmail(c);
      return requestAccountEmail(c, 'email-verification', c.req.valid('json').email);
    },
  )
  .post(
    '/email-verification',
    describeRoute({ tags: ['auth'], summary: "Confirm an account's email with the emailed link's token: 204, then it can sign in; 400 `invalid_link` for a bad link" }),
    validate('json', emailVerificationInputSchema),
    async (c) => {
      requireEmail(c);
      const userId = await verifyEmailWithToken(c.get('db'), c.req.valid('json').token);
      if (!userId) throw new ApiError(400, 'invalid_link', INVALID_LINK_MESSAGE);
      c.get('logger').info({ requestId: c.get('requestId'), userId }, 'email verified by link');
      return c.body(null, 204);
    },
  );
