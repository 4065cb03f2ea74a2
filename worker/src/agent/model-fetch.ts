import { Readable } from 'node:stream';
import { Agent, interceptors, request } from 'undici';

/** As many as fetch follows (an OpenAI-compatible server behind a proxy may answer 307/308). */
const MAX_REDIRECTIONS = 20;

const dispatcher = new Agent().compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS }));

function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  if (!init) return {};
  if (init instanceof Headers || Array.isArray(init)) return Object.fromEntries(new Headers(init));
  return Object.fromEntries(Object.entries(init).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/**
 * The `fetch` of the model calls: undici's `request`, its body handed to the AI SDK as a web
 * stream. Node's global fetch builds a Request, guarded Headers and a web-stream pipeline for each
 * call; `request` writes at once (in one process, the request arrives ~0.1 ms sooner and a
 * 50-chunk answer costs the client ~0.3 ms less CPU; docs/benchmarks.md, change 74). What the AI
 * SDK reads of a failure stays as it was: an abort rejects with an AbortError (or the signal's
 * reason), a network failure with undici's coded error (ECONNREFUSED, UND_ERR_SOCKET, …), which
 * the SDK retries as it does fetch's "fetch failed". A call this does not cover (a Request object,
 * a streamed or form body) goes to the global fetch.
 */
export const modelFetch: typeof fetch = async (input, init) => {
  const body = init?.body;
  if (input instanceof Request || (body != null && typeof body !== 'string' && !(body instanceof Uint8Array))) return fetch(input, init);
  const response = await request(input instanceof URL ? input.href : input, {
    method: (init?.method ?? 'GET') as 'GET',
    headers: headerRecord(init?.headers),
    body: body ?? undefined,
    signal: init?.signal ?? undefined,
    dispatcher,
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  // A Response with a null-body status takes no body; the socket is freed by reading it out.
  if ([101, 204, 205, 304].includes(response.statusCode)) {
    response.body.resume();
    return new Response(null, { status: response.statusCode, headers });
  }
  return new Response(Readable.toWeb(response.body) as ReadableStream<Uint8Array>, { status: response.statusCode, headers });
};

/**
 * Resolves once the immediates queued by now, and those they queue, have run. undici writes a
 * request on a reused keep-alive socket from a setImmediate (it first lets bytes already pending on
 * the idle socket be read: GHSA-35p6-xmwp-9g52), so work that must not go out before a model
 * request started in this turn (an opened run's claim, BullMQ's next marker wait) waits for this;
 * after a single setImmediate it went out first (~0.2 ms each on a worker woken from idle).
 */
export function afterModelRequestWrite(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
