import type { z } from 'zod';
import { getToolType } from '../tools/registry';
import { InvalidInputError } from './errors';
import { decryptSecret, encryptSecret } from './secrets';

/** Checks `secrets` against the type's `secretsSchema`; issues carry paths under `secrets`. */
export function validateToolSecrets(type: string, secrets: unknown): Record<string, unknown> {
  const schema = getToolType(type).secretsSchema;
  if (!schema) {
    if (secrets === undefined || secrets === null || (typeof secrets === 'object' && Object.keys(secrets).length === 0)) return {};
    throw new InvalidInputError(`Tool type '${type}' has no secrets`, [{ path: ['secrets'], message: `Tool type '${type}' takes no secrets` }]);
  }
  const parsed = (schema as z.ZodType).safeParse(secrets ?? {});
  if (!parsed.success) {
    throw new InvalidInputError(
      `Invalid secrets for tool type '${type}'`,
      parsed.error.issues.map((issue) => ({ path: ['secrets', ...issue.path], message: issue.message })),
    );
  }
  return parsed.data as Record<string, unknown>;
}

/**
 * Checks what the instance's config requires of its secrets (ToolType `checkSecrets`), e.g. an API key
 * for a provider that needs one; issues carry paths under `secrets`.
 */
export function checkToolSecrets(type: string, config: Record<string, unknown>, secrets: Record<string, unknown>): void {
  const issues = getToolType(type).checkSecrets?.(config, secrets) ?? [];
  if (issues.length > 0) {
    throw new InvalidInputError(
      `Missing secrets for tool type '${type}'`,
      issues.map((issue) => ({ path: ['secrets', ...issue.path], message: issue.message })),
    );
  }
}

/** Encrypts an instance's secrets as one value; null when there is nothing to keep. */
export function sealToolSecrets(secrets: Record<string, unknown>, appSecret: string | undefined): string | null {
  if (secretPaths(secrets).length === 0) return null;
  if (!appSecret) throw new Error('APP_SECRET is needed to store tool secrets');
  return encryptSecret(JSON.stringify(secrets), appSecret);
}

/** The decrypted secrets of a row (empty when it has none). Throws SecretDecryptionError for another APP_SECRET. */
export function openToolSecrets(row: { secretsEncrypted: string | null }, appSecret: string | undefined): Record<string, unknown> {
  if (!row.secretsEncrypted) return {};
  if (!appSecret) throw new Error('APP_SECRET is needed to read tool secrets');
  return JSON.parse(decryptSecret(row.secretsEncrypted, appSecret)) as Record<string, unknown>;
}

/** Dotted paths of the values that are set, e.g. `headers.Authorization`: what the API shows instead of values. */
export function secretPaths(secrets: unknown, prefix = ''): string[] {
  if (secrets === null || secrets === undefined || secrets === '') return [];
  if (typeof secrets !== 'object' || Array.isArray(secrets)) return prefix ? [prefix] : [];
  return Object.entries(secrets).flatMap(([key, value]) => secretPaths(value, prefix ? `${prefix}.${key}` : key));
}
