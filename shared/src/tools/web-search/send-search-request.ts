import { request } from 'undici';
import { assertSafeUrl, findBlockedDestinationError, type ResolveHostname } from '../fetch/assert-safe-url';
import { decodeText, readBodyCapped } from '../fetch/read-body';
import { errorCode } from '../fetch/error-code';
import { createSafeAgent } from '../fetch/safe-connect';
import type { ProviderRequest } from './search-provider';

/** Largest search answer read; a bigger one is refused rather than parsed half. */
export const MAX_ANSWER_BYTES = 1_048_576;
/** Enough of an error body to say what went wrong. */
const MAX_ERROR_BODY_BYTES = 4096;
const USER_AGENT = 'agentq-web-search/1.0';

export type SendOptions = {
  /** The run's cancellation (and the runner's deadline). */
  signal: AbortSignal;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** DNS for the pre-flight check and the connection; the system resolver when absent. */
  resolve?: ResolveHostname;
};

/** The provider's answer, whatever its status: the caller judges it. */
export type ProviderAnswer = { kind: 'answer'; status: number; contentType: string; body: string; truncated: boolean; retryAfter?: string };

/** Why no answer came: cancelled, timed out, refused by the SSRF checks, or the connection failed. */
export type SendFailure = { kind: 'failure'; error: string; metadata: Record<string, unknown> };

/**
 * Sends one search request through the fetch tool's hardened path: the URL and every address its host
 * resolves to are checked before dialling and again at connect time (DNS pinning), redirects are not
 * followed (a search API has no reason to redirect, and following one could carry the key elsewhere),
 * the body is read up to a cap, and the run's signal plus `timeoutMs` bound the whole exchange.
 */
export async function sendSearchRequest(providerRequest: ProviderRequest, options: SendOptions): Promise<ProviderAnswer | SendFailure> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout.signal]);
  const agent = createSafeAgent({ resolve: options.resolve, allowPrivateNetworks: options.allowPrivateNetworks, connectTimeout: options.timeoutMs });
  try {
    await assertSafeUrl(providerRequest.url, { resolve: options.resolve, allowPrivateNetworks: options.allowPrivateNetworks, signal });
    const response = await request(providerRequest.url, {
      method: providerRequest.method,
      headers: { 'user-agent': USER_AGENT, accept: 'application/json', 'accept-encoding': 'gzip, br', ...providerRequest.headers },
      body: providerRequest.body ?? null,
      dispatcher: agent,
      signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const status = response.statusCode;
    const contentType = headerValue(response.headers['content-type']) ?? '';
    if (status >= 300 && status < 400) {
      await response.body.dump().catch(() => {});
      const location = headerValue(response.headers.location);
      return failure(
        `The search provider answered with a redirect (HTTP ${status}${location ? ` to ${location}` : ''}), which is not followed. An admin should set baseUrl to the final address.`,
        { statusCode: status, redirectNotFollowed: true },
      );
    }
    const limit = status >= 200 && status < 300 ? MAX_ANSWER_BYTES : MAX_ERROR_BODY_BYTES;
    const capped = await readBodyCapped(response.body, limit, headerValue(response.headers['content-encoding']));
    const retryAfter = headerValue(response.headers['retry-after']);
    return { kind: 'answer', status, contentType, body: decodeText(capped.bytes, contentType), truncated: capped.truncated, ...(retryAfter && { retryAfter }) };
  } catch (error) {
    const blocked = findBlockedDestinationError(error);
    if (blocked) {
      return failure(
        `Blocked destination: ${blocked.reason}. The search provider must be on a public address; an operator can allow private networks with FETCH_ALLOW_PRIVATE_NETWORKS.`,
        { blocked: true, blockedReason: blocked.reason },
      );
    }
    if (options.signal.aborted) return failure('The search was cancelled.', { cancelled: true });
    if (timeout.signal.aborted) return failure(`The search timed out after ${options.timeoutMs} ms.`, { timedOut: true });
    const code = errorCode(error);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return failure(`Could not resolve the search provider's host (${code}).`, { errorCode: code });
    const message = error instanceof Error ? error.message : String(error);
    return failure(`Could not reach the search provider: ${message}${code ? ` (${code})` : ''}.`, { ...(code && { errorCode: code }) });
  } finally {
    clearTimeout(timer);
    await agent.destroy().catch(() => {});
  }
}

function failure(error: string, metadata: Record<string, unknown>): SendFailure {
  return { kind: 'failure', error, metadata };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
