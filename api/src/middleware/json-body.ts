import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';

/** Nesting of objects and arrays a request body may have; tool inputs and configs need far less. */
export const DEFAULT_JSON_MAX_DEPTH = 64;

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * The deepest nesting of `[`/`{` in JSON text, scanning without recursion and stopping once past
 * `limit` (so a 6,000-level body costs a few microseconds, not a stack overflow later on).
 */
export function jsonNestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 92 /* \ */) index++;
      else if (char === 34 /* " */) inString = false;
    } else if (char === 34) inString = true;
    else if (char === 91 /* [ */ || char === 123 /* { */) {
      if (++depth > limit) return true;
    } else if (char === 93 /* ] */ || char === 125 /* } */) depth--;
  }
  return false;
}

/**
 * The API's one JSON body parser: runs after the size limit (413), refuses malformed JSON and
 * nesting deeper than `maxDepth` with a clear 400, and hands the parsed value to every later
 * `c.req.json()` (the validators), so nothing parses the raw body a second time.
 */
export function jsonBody(maxDepth = DEFAULT_JSON_MAX_DEPTH): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async function jsonBody(c, next) {
    const mediaType = c.req.header('content-type')?.split(';')[0]?.trim() ?? '';
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || !JSON_MEDIA_TYPE.test(mediaType)) return next();
    const text = await c.req.text();
    if (text.trim() === '') return next();
    if (jsonNestingExceeds(text, maxDepth)) {
      throw new ApiError(400, 'json_too_deep', `The JSON body nests objects and arrays deeper than ${maxDepth} levels`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ApiError(400, 'invalid_json', `Malformed JSON in request body: ${error instanceof Error ? error.message : 'parse error'}`);
    }
    c.req.json = (() => Promise.resolve(parsed)) as typeof c.req.json;
    await next();
  });
}
