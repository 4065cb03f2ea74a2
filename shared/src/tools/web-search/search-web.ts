import { STATUS_CODES } from 'node:http';
import type { ToolResult } from '../define-tool-type';
import type { ResolveHostname } from '../fetch/assert-safe-url';
import { mediaTypeOf } from '../fetch/read-body';
import { maskSecret } from '../mask-secret';
import type { SourceNumbering } from '../../events/sources';
import { cleanHits, fenceSearchResults, resultSources } from './format-results';
import { SEARCH_PROVIDER_MODULES } from './providers';
import { MAX_ANSWER_BYTES, sendSearchRequest } from './send-search-request';
import { DEFAULT_BASE_URLS, type WebSearchConfig, type WebSearchInput } from './web-search-schemas';

/** Most characters of a provider's error body shown to the model. */
const MAX_ERROR_ECHO_CHARS = 300;

export type SearchWebOptions = {
  signal: AbortSignal;
  allowPrivateNetworks: boolean;
  apiKey: string | undefined;
  resolve?: ResolveHostname;
  /** The run's citation numbers (ToolContext.sources); from 1 without. */
  sources?: SourceNumbering;
};

/** The address searches go to: the configured baseUrl, or the hosted provider's official endpoint. */
export function searchEndpoint(config: WebSearchConfig): string | null {
  return config.baseUrl || DEFAULT_BASE_URLS[config.provider];
}

/**
 * Runs one search with the configured provider and returns what the model reads: the results as fenced
 * Markdown, "No results" (a success), or an error value naming the cause. The API key is sent only to
 * the provider and masked out of anything that comes back.
 */
export async function searchWeb(input: WebSearchInput, config: WebSearchConfig, options: SearchWebOptions): Promise<ToolResult> {
  const started = performance.now();
  const provider = SEARCH_PROVIDER_MODULES[config.provider];
  const count = Math.min(input.count ?? config.maxResults, config.maxResults);
  const base = { provider: provider.name, query: input.query };
  const result = (success: boolean, content: { data?: string; error?: string }, metadata: Record<string, unknown> = {}): ToolResult =>
    maskSecret({ success, ...content, metadata: { durationMs: Math.round(performance.now() - started), ...base, ...metadata } }, options.apiKey);

  const baseUrl = searchEndpoint(config);
  if (!baseUrl) return result(false, { error: `The web-search tool has no baseUrl for ${provider.label}; an admin must set it.` });
  if (provider.needsApiKey && !options.apiKey) return result(false, { error: `The web-search tool has no API key for ${provider.label}; an admin must add it (secret "apiKey").` });

  const sent = await sendSearchRequest(provider.request({ query: input.query, count, config, apiKey: options.apiKey, baseUrl }), {
    signal: options.signal,
    timeoutMs: config.timeout,
    allowPrivateNetworks: options.allowPrivateNetworks,
    resolve: options.resolve,
  });
  if (sent.kind === 'failure') return result(false, { error: sent.error }, sent.metadata);

  const { status } = sent;
  if (status === 401 || status === 403) {
    return result(false, { error: provider.refused?.(status) ?? `The search provider refused the request (HTTP ${status}).` }, { statusCode: status });
  }
  if (status === 429) {
    const wait = sent.retryAfter ? ` It asks to wait ${sent.retryAfter}${/^\d+$/.test(sent.retryAfter) ? ' s' : ''}.` : '';
    return result(false, { error: `The search provider is rate limiting this tool (HTTP 429 from ${provider.label}).${wait} Try again later instead of searching again now.` }, { statusCode: status, rateLimited: true });
  }
  if (status < 200 || status > 299) {
    const excerpt = errorExcerpt(sent.body);
    return result(false, { error: `The search provider answered HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd() + (excerpt ? `: ${excerpt}` : '.') }, { statusCode: status });
  }
  if (sent.truncated) return result(false, { error: `The search provider's answer is larger than ${MAX_ANSWER_BYTES} bytes; it was not read.` }, { statusCode: status });

  let answer: unknown;
  try {
    answer = JSON.parse(sent.body);
  } catch {
    const type = mediaTypeOf(sent.contentType) || 'no content type';
    return result(false, { error: `The search provider's answer is not JSON (${type}). Check the tool's baseUrl${provider.name === 'searxng' ? ' and that the instance allows format=json' : ''}.` }, { statusCode: status });
  }
  const read = provider.read(answer);
  if ('unexpected' in read) return result(false, { error: `The search provider's answer has an unexpected shape: ${read.unexpected}. Check the tool's provider and baseUrl.` }, { statusCode: status });

  const hits = cleanHits(read.hits, count);
  const first = hits.length > 0 ? (options.sources?.reserve(hits.length) ?? 1) : 1;
  return result(
    true,
    { data: fenceSearchResults({ providerLabel: provider.label, query: input.query, hits, note: read.note, first }) },
    { statusCode: status, resultCount: hits.length, ...(hits.length > 0 && { sources: resultSources(hits, first) }) },
  );
}

/** A provider's error body, trimmed to one short line. */
function errorExcerpt(body: string): string {
  const line = body.replace(/\s+/g, ' ').trim();
  return line.length > MAX_ERROR_ECHO_CHARS ? `${line.slice(0, MAX_ERROR_ECHO_CHARS)}…` : line;
}
