import { createHash } from 'node:crypto';

/** Never shown inside a frame (clickjacking); enforced by both the CSP and the older header. */
export const FRAME_ANCESTORS = "frame-ancestors 'none'";

/** For responses that are not HTML (JSON, SSE, scripts, metrics): nothing in them may load or run anything. */
export const NON_HTML_CSP = `default-src 'none'; ${FRAME_ANCESTORS}`;

/**
 * The headers every response of agentq carries, web and API alike. HSTS only when the public
 * origin is https (sending it over plain http would be ignored, or worse, pin a test host).
 */
export function securityHeaders(options: { https: boolean }): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    // The microphone for our own pages only: the chat composer's dictation records it.
    'permissions-policy': 'camera=(), microphone=(self), geolocation=(), payment=(), usb=()',
    ...(options.https && { 'strict-transport-security': 'max-age=31536000; includeSubDomains' }),
  };
}

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * A CSP for an HTML page we serve but do not render ourselves (the queue board, the API docs):
 * scripts only from our origin plus the page's own inline scripts, allowed by hash, never by
 * 'unsafe-inline'. Styles may be inline (both UIs inject CSS at runtime; CSS cannot run code).
 */
export function htmlPageCsp(html: string): string {
  const inlineScripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
    .filter(([, attributes]) => !/\bsrc\s*=/i.test(attributes ?? ''))
    .map(([, , body]) => sha256(body ?? ''));
  return [
    "default-src 'self'",
    `script-src 'self' ${[...new Set(inlineScripts)].join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    FRAME_ANCESTORS,
  ].join('; ');
}
