import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
// Fixed salt and info: the key depends on APP_SECRET alone, so every process derives the same one.
const HKDF_SALT = 'agentq/secrets';
const HKDF_INFO = 'aes-256-gcm v1';

/** A stored secret that cannot be opened: another APP_SECRET, or a damaged value. */
export class SecretDecryptionError extends Error {
  override name = 'SecretDecryptionError';
  constructor(reason: 'malformed' | 'wrong-secret', options?: { cause?: unknown }) {
    super(
      reason === 'malformed'
        ? `Cannot decrypt the secret: it is not in the '${VERSION}:<iv>:<tag>:<ciphertext>' format. Re-enter it.`
        : 'Cannot decrypt the secret: APP_SECRET differs from the one it was encrypted with, or the value was altered. Restore that APP_SECRET or re-enter the secret.',
      options,
    );
  }
}

function deriveKey(appSecret: string): Buffer {
  if (!appSecret) throw new Error('APP_SECRET is empty: it is needed to encrypt and decrypt stored secrets');
  return Buffer.from(hkdfSync('sha256', appSecret, HKDF_SALT, HKDF_INFO, 32));
}

/**
 * Encrypts with AES-256-GCM under a key derived from APP_SECRET (HKDF-SHA256) and a random IV.
 * @example encryptSecret('sk-...', env.APP_SECRET) // 'v1:<iv>:<tag>:<ciphertext>', each part base64url
 */
export function encryptSecret(plaintext: string, appSecret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(appSecret), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join(':');
}

/**
 * Opens a value written by `encryptSecret`.
 * @throws {SecretDecryptionError} for another APP_SECRET, a tampered value or an unknown format.
 */
export function decryptSecret(ciphertext: string, appSecret: string): string {
  const parts = ciphertext.split(':');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretDecryptionError('malformed');
  const [iv, tag, data] = parts.slice(1).map((part) => Buffer.from(part, 'base64url')) as [Buffer, Buffer, Buffer];
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretDecryptionError('malformed');
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(appSecret), iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new SecretDecryptionError('wrong-secret', { cause: error });
  }
}
