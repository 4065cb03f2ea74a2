import { PREVIEW_CSP, PREVIEW_SHELL } from '#lib/code-preview.ts';

/** The sandboxed shell a code block's preview runs in (see code-preview.ts). */
export function GET(): Response {
  return new Response(PREVIEW_SHELL, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': PREVIEW_CSP,
      // Framed by our own pages only (every other response says DENY).
      'x-frame-options': 'SAMEORIGIN',
      'cache-control': 'no-cache',
    },
  });
}
