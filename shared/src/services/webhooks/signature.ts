import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Standard Webhooks' secret spelling: `whsec_` and 32 random bytes in base64. */
const SECRET_PREFIX = 'whsec_';

/** A new signing secret for an endpoint (shown to its user once). */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a secret: the bytes after `whsec_`, as Standard Webhooks libraries read it. */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/**
 * The `webhook-signature` header value for one attempt: `v1,` and the base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>` (Standard Webhooks).
 * @example signWebhook(secret, { id: 'evt_…', timestamp: 1767225600, body: '{"type":"ping",…}' }) // 'v1,K5o…='
 */
export function signWebhook(secret: string, message: { id: string; timestamp: number; body: string }): string {
  const digest = createHmac('sha256', keyOf(secret)).update(`${message.id}.${message.timestamp}.${message.body}`).digest('base64');
  return `v1,${digest}`;
}

/**
 * What a receiver does (docs/webhooks.md): true when one of the header's space-separated `v1,`
 * signatures matches and the timestamp is within `toleranceSeconds` of now (replays are refused).
 */
export function verifyWebhookSignature(
  secret: string,
  headers: { 'webhook-id'?: string; 'webhook-timestamp'?: string; 'webhook-signature'?: string },
  body: string,
  options: { toleranceSeconds?: number; now?: number } = {},
): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const header = headers['webhook-signature'];
  if (!id || !Number.isInteger(timestamp) || !header) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signWebhook(secret, { id, timestamp, body }).slice(3), 'base64');
  return header.split(' ').some((candidate) => {
    const [version, signature] = candidate.split(',');
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
