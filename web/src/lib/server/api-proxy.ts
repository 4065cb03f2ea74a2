import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { RequestEvent } from '@sveltejs/kit';
import type { Handle } from '@sveltejs/kit/hooks';

/** Paths the API process serves; everything else belongs to the web app. */
export const API_PATH_PREFIXES = ['/api', '/metrics', '/admin/queues'] as const;

// RFC 9110 §7.6.1: meaningful for one connection only, never forwarded.
const HOP_BY_HOP_HEADERS = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

// The Response constructor refuses a body with these statuses.
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** `/api/...`, `/metrics` and `/admin/queues[/...]`, matched on whole path segments. */
export function isApiPath(pathname: string): boolean {
  return API_PATH_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

/**
 * A `handle` hook that forwards API paths to `apiUrl` (an origin such as `http://api:3001`) and
 * streams the answer back untouched, so SSE reaches the browser event by event. Without `apiUrl`
 * it passes everything to SvelteKit: in the all-in-one server the front server routes `/api`.
 * @example export const handle = createApiProxy(process.env.API_URL);
 */
export function createApiProxy(apiUrl: string | undefined): Handle {
  if (!apiUrl) return ({ event, resolve }) => resolve(event);
  const upstream = new URL(apiUrl);
  return function apiProxyHandle({ event, resolve }) {
    return isApiPath(event.url.pathname) ? proxyRequest(event, upstream) : resolve(event);
  };
}

/** Forwards one request to `upstream` and returns the upstream response with its body as a stream. */
export async function proxyRequest(
  event: Pick<RequestEvent, 'request' | 'url' | 'getClientAddress'>,
  upstream: URL,
): Promise<Response> {
  const { request, url } = event;
  const target = new URL(url.pathname + url.search, upstream);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';

  let upstreamResponse: IncomingMessage;
  try {
    upstreamResponse = await forward(target, request.method, forwardedRequestHeaders(event), hasBody ? request.body : null, request.signal);
  } catch (error) {
    if (request.signal.aborted) return new Response(null, { status: 499 });
    const tooLarge = findStatus(error) === 413;
    // One line, no stack: an outage is an operational event, not a bug in this process.
    console.error(`API proxy: ${request.method} ${url.pathname} failed: ${describeError(error)}`);
    if (tooLarge) {
      return Response.json({ error: { code: 'payload_too_large', message: 'The request body is too large.' } }, { status: 413 });
    }
    return Response.json(
      { error: { code: 'bad_gateway', message: 'The API is unreachable. Try again in a moment.' } },
      { status: 502 },
    );
  }

  const headers = new Headers();
  const raw = upstreamResponse.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index]!, raw[index + 1]!);
  const status = upstreamResponse.statusCode ?? 502;
  const nullBody = NULL_BODY_STATUSES.has(status);
  if (nullBody) upstreamResponse.resume();
  return new Response(nullBody ? null : (Readable.toWeb(upstreamResponse) as ReadableStream<Uint8Array>), {
    status,
    statusText: upstreamResponse.statusMessage,
    headers: withoutHopByHopHeaders(headers),
  });
}

/**
 * Sends one request upstream with node:http and resolves with the response as soon as its head
 * arrives, even while the body is still being sent: an API that refuses a large body early (413)
 * and closes the connection is reported as that 413, where fetch() would only see "other side closed".
 */
function forward(target: URL, method: string, headers: Headers, body: ReadableStream<Uint8Array> | null, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing: Record<string, string> = {};
    headers.forEach((value, name) => (outgoing[name] = value));
    // A request with a body gets a connection of its own, kept alive (so an API that answers early,
    // a 413, drains the rest instead of resetting the connection under our writes) but never reused
    // (a connection in that state would fail the next request).
    const agent = body ? new (target.protocol === 'https:' ? HttpsAgent : HttpAgent)({ keepAlive: true, maxSockets: 1 }) : undefined;
    const upstream = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, { method, headers: outgoing, signal, ...(agent && { agent }) });
    if (agent) upstream.on('close', () => agent.destroy());
    const source = body ? Readable.fromWeb(body as NodeReadableStream<Uint8Array>) : undefined;
    upstream.on('response', (response) => {
      if (!upstream.writableFinished) {
        // The API answered before it had the whole body (a 413): stop sending, and never put this
        // half-sent connection back in the pool. The browser's remaining body is drained by SvelteKit
        // after the answer (destroying it would cut the browser off before the 413 arrives).
        (upstream as unknown as { shouldKeepAlive: boolean }).shouldKeepAlive = false;
        source?.unpipe(upstream);
      }
      resolve(response);
    });
    // Before the response this fails the proxy; after it (a write into a closed socket) it changes nothing.
    upstream.on('error', reject);
    if (!source) {
      upstream.end();
      return;
    }
    source.on('error', (error) => upstream.destroy(error));
    source.pipe(upstream);
  });
}

function forwardedRequestHeaders(event: Pick<RequestEvent, 'request' | 'getClientAddress'>): Headers {
  const headers = withoutHopByHopHeaders(event.request.headers);
  const host = headers.get('host');
  // Host names the upstream; the API's answer is passed on undecoded, so any encoding would do,
  // but identity keeps SSE flushing event by event.
  headers.delete('host');
  headers.delete('accept-encoding');
  if (host) headers.set('x-forwarded-host', host);
  const clientAddress = safeClientAddress(event);
  if (clientAddress) {
    const forwardedFor = headers.get('x-forwarded-for');
    headers.set('x-forwarded-for', forwardedFor ? `${forwardedFor}, ${clientAddress}` : clientAddress);
  }
  return headers;
}

function withoutHopByHopHeaders(source: Headers): Headers {
  const headers = new Headers(source);
  const listed = source.get('connection')?.split(',') ?? [];
  for (const name of [...HOP_BY_HOP_HEADERS, ...listed]) {
    const trimmed = name.trim();
    if (trimmed) headers.delete(trimmed);
  }
  return headers;
}

function safeClientAddress(event: Pick<RequestEvent, 'getClientAddress'>): string | undefined {
  try {
    return event.getClientAddress();
  } catch {
    return undefined;
  }
}

/** The HTTP status an error carries (SvelteKit's body-limit error has one), searching its causes. */
function findStatus(error: unknown): number | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const status = (current as { status?: unknown }).status;
    if (typeof status === 'number') return status;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** `message (CODE)` of an error and its causes, e.g. "fetch failed: connect ECONNREFUSED 127.0.0.1:3001 (ECONNREFUSED)". */
function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const { message, code } = current as { message?: unknown; code?: unknown };
    if (typeof message === 'string' && message) parts.push(typeof code === 'string' ? `${message} (${code})` : message);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(': ') || String(error);
}
