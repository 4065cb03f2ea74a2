import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret, SecretDecryptionError } from './secrets';

const SECRET = 'test-app-secret-0123456789';

describe('encryptSecret / decryptSecret', () => {
  it('round-trips, including unicode and the empty string', () => {
    for (const plaintext of ['sk-secret-123', 'ключ 🔑', '']) {
      expect(decryptSecret(encryptSecret(plaintext, SECRET), SECRET)).toBe(plaintext);
    }
  });

  it('writes v1:<iv>:<tag>:<ciphertext> in base64url with a fresh IV each time', () => {
    const first = encryptSecret('sk-secret-123', SECRET);
    const second = encryptSecret('sk-secret-123', SECRET);
    expect(first).toMatch(/^v1:[\w-]{16}:[\w-]{22}:[\w-]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('sk-secret-123');
  });

  it('refuses another APP_SECRET with an error that names the fix', () => {
    const stored = encryptSecret('sk-secret-123', SECRET);
    expect(() => decryptSecret(stored, 'another-app-secret-xyz')).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(stored, 'another-app-secret-xyz')).toThrow(/APP_SECRET differs/);
  });

  it('detects tampering and malformed values', () => {
    const [version, iv, tag, data] = encryptSecret('sk-secret-123', SECRET).split(':') as [string, string, string, string];
    const flipped = Buffer.from(data, 'base64url');
    flipped[0]! ^= 1;
    expect(() => decryptSecret([version, iv, tag, flipped.toString('base64url')].join(':'), SECRET)).toThrow(/altered/);
    expect(() => decryptSecret('sk-secret-123', SECRET)).toThrow(/format/);
    expect(() => decryptSecret(`v2:${iv}:${tag}:${data}`, SECRET)).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(`v1:${iv}:AAAA:${data}`, SECRET)).toThrow(/format/);
  });

  it('needs a non-empty APP_SECRET', () => {
    expect(() => encryptSecret('x', '')).toThrow(/APP_SECRET/);
  });
});
