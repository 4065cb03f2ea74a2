import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PARAMETERS = { N: 16384, r: 8, p: 1, keyLength: 64 } as const;

function deriveKey(password: string, salt: Buffer, options: ScryptOptions & { keyLength: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, options.keyLength, { N: options.N, r: options.r, p: options.p, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** scrypt (memory-hard KDF) with a random salt; parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await deriveKey(password, salt, PARAMETERS);
  return ['scrypt', PARAMETERS.N, PARAMETERS.r, PARAMETERS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Constant-time comparison against a stored hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltText, keyText] = stored.split('$');
  if (scheme !== 'scrypt' || !saltText || !keyText) return false;
  const expected = Buffer.from(keyText, 'base64');
  const actual = await deriveKey(password, Buffer.from(saltText, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    keyLength: expected.length,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * What an account without a password stores in place of a hash (one made by single sign-on): no
 * password verifies against it, and `hasUsablePassword` tells the Account page to offer no change.
 */
export const NO_PASSWORD_HASH = '!no-password';

/** Whether a stored hash can match some password (false for NO_PASSWORD_HASH). */
export function hasUsablePassword(stored: string): boolean {
  return stored.startsWith('scrypt$');
}
