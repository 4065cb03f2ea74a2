import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';

/**
 * 413 for a request body over `maxBytes`. A body that declares its length is judged by the header
 * alone, and a GET or HEAD has none to judge: hono's `bodyLimit`, which handles the rest (chunked
 * bodies, counted as they stream in), first asks the request for its body stream, and on Node that
 * builds a full WHATWG Request for every request (a tenth of a millisecond each), which the later
 * `c.req.text()` would otherwise read straight from the socket.
 */
/** A route that takes files (a chat import, an attachment) and may take more than the rest: its exact path or a pattern. */
export type LargerBodyRoute = { path: string | RegExp; maxBytes: number };

export function bodySizeLimit(maxBytes: number, largerFor: readonly LargerBodyRoute[] = []): MiddlewareHandler<AppEnv> {
  const standard = sizeLimit(maxBytes);
  const larger = largerFor.map((route) => ({ path: route.path, limit: sizeLimit(route.maxBytes) }));
  const limitFor = (path: string) => larger.find((route) => (typeof route.path === 'string' ? route.path === path : route.path.test(path)))?.limit ?? standard;
  return createMiddleware<AppEnv>(async function bodySizeLimit(c, next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const limit = limitFor(c.req.path);
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return limit.streamed(c, next);
    if (Number(length) > limit.maxBytes) throw limit.tooLarge();
    return next();
  });
}

function sizeLimit(maxBytes: number) {
  const tooLarge = () => new ApiError(413, 'payload_too_large', `Request body exceeds ${maxBytes} bytes`);
  const streamed = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  return { maxBytes, tooLarge, streamed };
}
