import { request } from 'undici';
import type { WebhookEvent } from '../../queues/catalog';
import { findBlockedDestinationError } from '../../tools/fetch/assert-safe-url';
import { createSafeAgent } from '../../tools/fetch/safe-connect';
import type { WebhookNetworkOptions } from './check-url';
import { signWebhook } from './signature';

/** How long one attempt may take, connect to last byte. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How much of the receiver's answer is kept for the log. */
export const RESPONSE_EXCERPT_CHARS = 500;
const USER_AGENT = 'agentq-webhooks/1.0';

/** One attempt's outcome: a 2xx, or why not and whether trying again could help. */
export type SendOutcome = {
  ok: boolean;
  status: number | null;
  excerpt: string | null;
  error: string | null;
  durationMs: number;
  /** False for a destination the SSRF check refuses: the same URL will be refused again. */
  retryable: boolean;
};

/**
 * POSTs the event to `url`, signed with `secret` (Standard Webhooks headers), through the fetch
 * tool's connect-time-checked agent: the address it dials is the one just classified, so a DNS
 * answer changed since the URL was saved cannot reach a private address. Redirects are not followed
 * (a 3xx is a failure); the answer's body is read only up to a short excerpt. Never throws.
 */
export async function sendWebhook(url: string, secret: string, event: WebhookEvent, options: WebhookNetworkOptions & { timeoutMs?: number }): Promise<SendOutcome> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const agent = createSafeAgent({ allowPrivateNetworks: options.allowPrivateNetworks, resolve: options.resolve, connectTimeout: timeoutMs });
  try {
    // A safe agent refuses the destination as it connects; a URL saved as http while the escape hatch was on is refused once it is off.
    if (new URL(url).protocol !== 'https:' && !options.allowPrivateNetworks) {
      return { ok: false, status: null, excerpt: null, error: 'Refused: plain http is only allowed with FETCH_ALLOW_PRIVATE_NETWORKS', durationMs: 0, retryable: false };
    }
    const response = await request(url, {
      method: 'POST',
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(secret, { id: event.id, timestamp, body }),
      },
      body,
    });
    const excerpt = await readExcerpt(response.body);
    const ok = response.statusCode >= 200 && response.statusCode <= 299;
    return { ok, status: response.statusCode, excerpt, error: ok ? null : `HTTP ${response.statusCode}`, durationMs: elapsed(), retryable: !ok };
  } catch (error) {
    const blocked = findBlockedDestinationError(error);
    if (blocked) return { ok: false, status: null, excerpt: null, error: `Refused: ${blocked.reason}`, durationMs: elapsed(), retryable: false };
    const timedOut = (error as Error).name === 'TimeoutError' || (error as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT';
    const reason = timedOut ? `Timed out after ${timeoutMs} ms` : describeNetworkError(error);
    return { ok: false, status: null, excerpt: null, error: reason, durationMs: elapsed(), retryable: true };
  } finally {
    await agent.destroy().catch(() => {});
  }
}

/** The first RESPONSE_EXCERPT_CHARS characters of the body; the rest is dropped unread. */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy: () => void }): Promise<string | null> {
  let text = '';
  try {
    for await (const chunk of body) {
      text += chunk.toString('utf8');
      if (text.length >= RESPONSE_EXCERPT_CHARS) break;
    }
  } catch {
    // A body cut short still leaves what arrived.
  } finally {
    body.destroy();
  }
  return text ? text.slice(0, RESPONSE_EXCERPT_CHARS) : null;
}

function describeNetworkError(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: string }).code;
    if (code && !code.startsWith('UND_ERR_SOCKET')) return `${code}: ${(current as Error).message}`.slice(0, 300);
    current = (current as { cause?: unknown }).cause;
  }
  return ((error as Error).message ?? String(error)).slice(0, 300);
}
