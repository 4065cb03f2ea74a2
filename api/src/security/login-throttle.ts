import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { countInWindow } from './rate-limit';

export type LoginThrottleOptions = {
  /** Failed sign-ins allowed per account within one window. */
  maxPerAccount: number;
  /** Failed sign-ins allowed per client address within one window (all accounts together). */
  maxPerAddress: number;
  /** How long a window lasts from its first failure; a lockout never outlives it. */
  windowSeconds: number;
};

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = { maxPerAccount: 10, maxPerAddress: 30, windowSeconds: 15 * 60 };

type Scope = 'account' | 'address';

/**
 * The one place login-throttle key names are made: `${prefix}:login-failures:<scope>:<sha256>`.
 * Hashing keeps emails and addresses out of Redis key listings.
 */
export function loginThrottleKey(prefix: string, scope: Scope, id: string): string {
  return `${prefix}:login-failures:${scope}:${createHash('sha256').update(id).digest('hex').slice(0, 32)}`;
}

// Gives an attempt back without creating a key (a DECR on an expired key would leave -1 forever).
const RETURN_ATTEMPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end
return 0`;

export type LoginAttempt =
  | { allowed: true; succeeded: () => Promise<void> }
  | { allowed: false; retryAfterSeconds: number; scope: Scope };

/**
 * Login throttling kept in Redis, so it holds across API processes. Every attempt is counted
 * before the password is checked (parallel guesses cannot slip past the limit) and a successful
 * sign-in takes its attempt back. Past the limit for the account or the client address, attempts
 * are refused until that window ends: a fixed window, so nobody can lock an account for longer.
 */
export async function beginLoginAttempt(
  redis: Redis,
  prefix: string,
  who: { email: string; address: string },
  options: LoginThrottleOptions = DEFAULT_LOGIN_THROTTLE,
): Promise<LoginAttempt> {
  const windowMs = options.windowSeconds * 1000;
  const accountKey = loginThrottleKey(prefix, 'account', who.email.trim().toLowerCase());
  const addressKey = loginThrottleKey(prefix, 'address', who.address);
  const [account, address] = await Promise.all([countInWindow(redis, accountKey, windowMs), countInWindow(redis, addressKey, windowMs)]);

  const over: { scope: Scope; ttlMs: number }[] = [];
  if (account.count > options.maxPerAccount) over.push({ scope: 'account', ttlMs: account.ttlMs });
  if (address.count > options.maxPerAddress) over.push({ scope: 'address', ttlMs: address.ttlMs });
  if (over.length > 0) {
    const longest = over.reduce((a, b) => (b.ttlMs > a.ttlMs ? b : a));
    return { allowed: false, scope: longest.scope, retryAfterSeconds: Math.max(1, Math.ceil(longest.ttlMs / 1000)) };
  }
  return {
    allowed: true,
    async succeeded() {
      // The account's failures are forgiven; the address keeps its other failures.
      await Promise.all([redis.del(accountKey), redis.eval(RETURN_ATTEMPT, 1, addressKey)]);
    },
  };
}
