import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';

/** How long a browser may stay at the provider before the sign-in it started expires. */
export const PENDING_SIGN_IN_TTL_SECONDS = 10 * 60;

/** What the callback needs to check the provider's answer, and where to go after. */
export const pendingSignInSchema = z.object({
  codeVerifier: z.string(),
  nonce: z.string(),
  /** A same-origin path (safeNextPath). */
  next: z.string(),
});
export type PendingSignIn = z.infer<typeof pendingSignInSchema>;

/** `${prefix}:oidc-sign-in:<sha256 of state>`: the state itself never appears in key listings. */
function pendingKey(prefix: string, state: string): string {
  return `${prefix}:oidc-sign-in:${createHash('sha256').update(state).digest('hex').slice(0, 32)}`;
}

/** Keeps a started sign-in in Redis (shared by every API process) until its callback or expiry. */
export async function savePendingSignIn(redis: Redis, prefix: string, state: string, pending: PendingSignIn): Promise<void> {
  await redis.set(pendingKey(prefix, state), JSON.stringify(pending), 'EX', PENDING_SIGN_IN_TTL_SECONDS);
}

/**
 * The sign-in started with `state`, removed in the same step (GETDEL): a callback is accepted
 * once, so a replayed one finds nothing. Null when unknown, expired or already used.
 */
export async function takePendingSignIn(redis: Redis, prefix: string, state: string): Promise<PendingSignIn | null> {
  const stored = await redis.getdel(pendingKey(prefix, state));
  if (!stored) return null;
  const parsed = pendingSignInSchema.safeParse(JSON.parse(stored));
  return parsed.success ? parsed.data : null;
}
