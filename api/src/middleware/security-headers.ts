import { htmlPageCsp, NON_HTML_CSP, securityHeaders as headersFor } from '@agentq/shared/http';
import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps';

/**
 * Security headers on every API response (SPEC: no page of ours can be framed, sniffed or leak
 * its URL). JSON, SSE and assets get a CSP that allows nothing; the HTML pages the API serves
 * (queue board, API docs) get one that allows our origin plus their own inline scripts by hash.
 */
export function securityHeaders(options: { https: boolean }): MiddlewareHandler<AppEnv> {
  const common = Object.entries(headersFor(options));
  return createMiddleware<AppEnv>(async function securityHeaders(c, next) {
    await next();
    const isHtml = c.res.headers.get('content-type')?.includes('text/html') ?? false;
    let csp = NON_HTML_CSP;
    if (isHtml && c.res.body) {
      const html = await c.res.clone().text();
      csp = htmlPageCsp(html);
    }
    const set = (headers: Headers) => {
      for (const [name, value] of common) headers.set(name, value);
      // A 304's headers update the cached response: it must not swap a page's policy for another.
      if (c.res.status !== 304) headers.set('content-security-policy', csp);
    };
    try {
      set(c.res.headers);
    } catch {
      // A response passed through from fetch() has immutable headers: copy it.
      const headers = new Headers(c.res.headers);
      set(headers);
      c.res = new Response(c.res.body, { status: c.res.status, statusText: c.res.statusText, headers });
    }
  });
}
