import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import { request } from 'undici';
import type { ToolResult } from '../define-tool-type';
import {
  assertSafeUrl,
  findBlockedDestinationError,
  normalizeHostname,
  type ResolveHostname,
} from './assert-safe-url';
import { checkDomainAccess } from './domain-access';
import { boundedSnippet, type SourceNumbering } from '../../events/sources';
import { errorCode } from './error-code';
import { fenceUntrustedContent } from './fence-untrusted-content';
import type { FetchConfig, FetchInput, HttpMethod } from './fetch-schemas';
import { parseBody } from './parse-body';
import { decodeText, isBinaryMediaType, looksBinary, mediaTypeOf, readBodyCapped } from './read-body';
import { pageTitle } from './page-title';
import { createSafeAgent } from './safe-connect';

/** Redirects followed by hand before giving up; each hop is checked like the first request. */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/**
 * The only headers that follow a redirect to another origin. Any other header, configured
 * (`x-api-key`, `authorization`) or supplied by the model, may be a credential meant for the
 * first origin, so it stays behind.
 */
export const CROSS_ORIGIN_SAFE_HEADERS = ['accept', 'accept-language', 'user-agent'] as const;
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'transfer-encoding'];
const USER_AGENT = 'agentq-fetch/1.0';
const ACCEPT_BY_MODE: Record<FetchConfig['parseMode'], string> = {
  markdown: 'text/html, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.5',
  json: 'application/json, */*;q=0.5',
  raw: '*/*',
};

export type FetchUrlOptions = {
  /** Cancels the fetch (run cancelled); the config timeout is applied on top. */
  signal: AbortSignal;
  allowPrivateNetworks: boolean;
  /** Sent as the Idempotency-Key header (a non-idempotent call made by a run). */
  idempotencyKey?: string;
  /** DNS for both the pre-flight check and the connection; the system resolver when absent. */
  resolve?: ResolveHostname;
  /** The run's citation numbers (ToolContext.sources): a fetched page is one source. From 1 without. */
  sources?: SourceNumbering;
};

/**
 * Runs one fetch as the tool's executor: domain lists and SSRF checks on every hop, a
 * connect-time address check, manual redirects, a streaming size cap and a timeout. Never
 * throws for a tool-level failure; the result is what the model reads.
 */
export async function fetchUrl(input: FetchInput, config: FetchConfig, options: FetchUrlOptions): Promise<ToolResult> {
  const fetched = await fetchText(input, config, options);
  if (!fetched.ok) return fetched.result;
  const { finalUrl, statusCode, contentType, bytes, truncated, redirects, declaredLength, text } = fetched;
  const parsed = await parseBody(text, contentType, config.parseMode);
  const citation = options.sources?.reserve(1) ?? 1;
  const mediaType = mediaTypeOf(contentType);
  const title = (mediaType === 'text/html' || mediaType === 'application/xhtml+xml' ? pageTitle(text) : undefined) ?? finalUrl;
  return {
    success: true,
    data: fenceUntrustedContent({
      finalUrl,
      statusCode,
      contentType,
      bytes,
      truncated,
      format: parsed.format,
      note: parsed.note,
      citation,
      content: parsed.content,
    }),
    metadata: {
      durationMs: fetched.durationMs(),
      statusCode,
      responseSize: bytes,
      finalUrl,
      truncated,
      contentType,
      redirects,
      format: parsed.format,
      ...(declaredLength !== undefined && { declaredSize: declaredLength }),
      ...(parsed.degraded && { degraded: true }),
      sources: [{ index: citation, kind: 'web', title: boundedSnippet(title, 300), url: finalUrl, snippet: boundedSnippet(parsed.content) }],
    },
  };
}

/** A 2xx text body read through the guarded path, before any parse mode is applied. */
export type FetchedText = {
  ok: true;
  /** Where the body came from after redirects. */
  finalUrl: string;
  statusCode: number;
  contentType: string;
  /** Bytes read (at most `maxResponseSize`). */
  bytes: number;
  /** The body was longer than `maxResponseSize` and the rest was never read. */
  truncated: boolean;
  redirects: number;
  declaredLength: number | undefined;
  /** The body decoded with its declared charset. */
  text: string;
  durationMs: () => number;
};

/**
 * The guarded request behind the fetch tool and every other page fetch (knowledge pages, pages
 * attached in the chat): domain lists and SSRF checks on every hop, a connect-time address check,
 * manual redirects, a streaming size cap and a timeout; binary bodies are refused. A failure is a
 * ToolResult whose `error` says why (never thrown).
 */
export async function fetchText(input: FetchInput, config: FetchConfig, options: FetchUrlOptions): Promise<FetchedText | { ok: false; result: ToolResult }> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let method: HttpMethod = input.method ?? config.defaultMethod;
  let body: string | undefined = input.body;
  let headers = mergeHeaders(config.defaultHeaders, input.headers, config.parseMode);
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  let currentUrl = input.url;
  let redirects = 0;
  const failure = (error: string, extra: Record<string, unknown> = {}): ToolResult => ({
    success: false,
    error,
    metadata: { durationMs: elapsed(), url: input.url, finalUrl: currentUrl, redirects, ...extra },
  });
  const fail = (error: string, extra: Record<string, unknown> = {}) => ({ ok: false as const, result: failure(error, extra) });

  if (body !== undefined && (method === 'GET' || method === 'HEAD')) {
    return fail(`A request body cannot be sent with ${method}; use POST, PUT or PATCH.`);
  }

  const timeoutController = new AbortController();
  const timer = setTimeout(
    () => timeoutController.abort(new Error(`timed out after ${config.timeout} ms`)),
    config.timeout,
  );
  const signal = AbortSignal.any([options.signal, timeoutController.signal]);
  const agent = createSafeAgent({
    resolve: options.resolve,
    allowPrivateNetworks: options.allowPrivateNetworks,
    connectTimeout: config.timeout,
  });

  try {
    for (;;) {
      const parsedUrl = parseHttpUrl(currentUrl);
      if (typeof parsedUrl === 'string') return fail(parsedUrl);
      const domainRefusal = checkDomainAccess(normalizeHostname(parsedUrl.hostname), config);
      if (domainRefusal) return fail(`Domain not allowed: ${domainRefusal}.`, { blocked: true });
      await assertSafeUrl(parsedUrl, {
        resolve: options.resolve,
        allowPrivateNetworks: options.allowPrivateNetworks,
        signal,
      });

      const response = await request(parsedUrl, {
        method,
        headers,
        body: body ?? null,
        dispatcher: agent,
        signal,
        // Our own timer bounds the whole fetch; undici's 300 s defaults would only hide it.
        headersTimeout: config.timeout,
        bodyTimeout: config.timeout,
      });
      const statusCode = response.statusCode;
      const location = headerValue(response.headers.location);

      if (REDIRECT_STATUSES.has(statusCode) && location) {
        await response.body.dump().catch(() => {});
        if (redirects >= MAX_REDIRECTS) {
          return fail(`Too many redirects (more than ${MAX_REDIRECTS}); last one pointed to ${location}.`, { statusCode });
        }
        let nextUrl: URL;
        try {
          nextUrl = new URL(location, parsedUrl);
        } catch {
          return fail(`Redirect to an invalid URL: ${location}`, { statusCode });
        }
        // Browsers turn 303 (and 301/302 after POST) into a body-less GET; 307/308 replay as is.
        const becomesGet = statusCode === 303 ? method !== 'HEAD' : (statusCode === 301 || statusCode === 302) && method === 'POST';
        const crossOrigin = nextUrl.origin !== parsedUrl.origin;
        if (crossOrigin && !becomesGet && body !== undefined) {
          // Replaying a body to an origin the caller never named could post its data anywhere.
          return fail(
            `HTTP ${statusCode} redirect to ${nextUrl.href} was not followed: it points to another origin and would resend the ${method} body there. ` +
              'Call the new URL yourself if it is the intended destination.',
            { statusCode, location: nextUrl.href, redirectNotFollowed: true },
          );
        }
        redirects += 1;
        if (becomesGet) {
          method = 'GET';
          body = undefined;
          headers = withoutHeaders(headers, BODY_HEADERS);
        }
        if (crossOrigin) headers = crossOriginHeaders(input.headers, config.parseMode);
        currentUrl = nextUrl.href;
        continue;
      }

      const contentType = headerValue(response.headers['content-type']) ?? '';
      const statusText = STATUS_CODES[statusCode] ?? 'Unknown status';
      if (statusCode < 200 || statusCode > 299) {
        await response.body.dump().catch(() => {});
        return fail(`HTTP ${statusCode} ${statusText} from ${currentUrl}. The request did not succeed; do not retry it unchanged.`, {
          statusCode,
          contentType,
        });
      }

      const mediaType = mediaTypeOf(contentType);
      if (isBinaryMediaType(mediaType)) {
        discardBody(response.body);
        return fail(`The response is binary (${mediaType}); this tool only returns text.`, { statusCode, contentType });
      }

      const declaredLength = Number.parseInt(headerValue(response.headers['content-length']) ?? '', 10);
      const capped = await readBodyCapped(response.body, config.maxResponseSize, headerValue(response.headers['content-encoding']));
      const truncated = capped.truncated || (Number.isFinite(declaredLength) && declaredLength > config.maxResponseSize);
      if (looksBinary(capped.bytes)) {
        return fail(`The response looks binary (${mediaType || 'no content type'}); this tool only returns text.`, {
          statusCode,
          contentType,
        });
      }

      return {
        ok: true,
        finalUrl: currentUrl,
        statusCode,
        contentType,
        bytes: capped.bytes.length,
        truncated,
        redirects,
        declaredLength: Number.isFinite(declaredLength) ? declaredLength : undefined,
        text: decodeText(capped.bytes, contentType),
        durationMs: elapsed,
      };
    }
  } catch (error) {
    return { ok: false, result: describeFailure(error, { timedOut: timeoutController.signal.aborted, cancelled: options.signal.aborted, timeout: config.timeout, fail: failure }) };
  } finally {
    clearTimeout(timer);
    await agent.destroy().catch(() => {});
  }
}

function describeFailure(
  error: unknown,
  context: { timedOut: boolean; cancelled: boolean; timeout: number; fail: (message: string, extra?: Record<string, unknown>) => ToolResult },
): ToolResult {
  const blocked = findBlockedDestinationError(error);
  if (blocked) {
    return context.fail(`Blocked destination: ${blocked.reason}. Only public http(s) addresses can be fetched.`, {
      blocked: true,
      blockedReason: blocked.reason,
    });
  }
  if (context.cancelled) return context.fail('The fetch was cancelled.', { cancelled: true });
  if (context.timedOut) {
    return context.fail(`The fetch timed out after ${context.timeout} ms.`, { timedOut: true });
  }
  const code = errorCode(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') {
    return context.fail(`Could not resolve the host (${code}).`, { errorCode: code });
  }
  const message = error instanceof Error ? error.message : String(error);
  return context.fail(`Request failed: ${message}${code ? ` (${code})` : ''}.`, { ...(code && { errorCode: code }) });
}

function parseHttpUrl(url: string): URL | string {
  try {
    return new URL(url);
  } catch {
    return `Not a valid absolute URL: ${url}`;
  }
}

function mergeHeaders(
  defaults: Record<string, string>,
  overrides: Record<string, string> | undefined,
  parseMode: FetchConfig['parseMode'],
): Record<string, string> {
  const merged: Record<string, string> = { 'user-agent': USER_AGENT, accept: ACCEPT_BY_MODE[parseMode] };
  for (const [name, value] of Object.entries({ ...defaults })) merged[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(overrides ?? {})) merged[name.toLowerCase()] = value;
  return merged;
}

/**
 * What a hop to another origin sends: our defaults plus the model's safe headers. Configured
 * headers never go along (they are the admin's credentials for the first origin), and once
 * dropped they stay dropped for the rest of the chain.
 */
function crossOriginHeaders(overrides: Record<string, string> | undefined, parseMode: FetchConfig['parseMode']): Record<string, string> {
  const safe = Object.entries(overrides ?? {}).filter(([name]) => (CROSS_ORIGIN_SAFE_HEADERS as readonly string[]).includes(name.toLowerCase()));
  return mergeHeaders({}, Object.fromEntries(safe), parseMode);
}

function withoutHeaders(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
}

/** Drops a body we will not read; undici reports the resulting abort as an error we expect. */
function discardBody(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
