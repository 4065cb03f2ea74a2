/**
 * Previews of HTML and SVG code blocks (what Open WebUI and LibreChat call artifacts). The code is
 * the model's, so it runs where it can reach nothing: an iframe sandboxed without
 * `allow-same-origin` (an opaque origin: no cookies, no storage, no access to the page around it)
 * whose document is the shell `/preview` serves under a policy of its own (no network at all:
 * scripts and styles inline, images and fonts only from data: and blob: URLs). The page posts the
 * code to the shell once it says it is ready; the shell writes it as its document.
 */

/** Code block languages a preview renders. */
const PREVIEWED = new Set(['html', 'htm', 'xhtml', 'svg']);

export const canPreview = (language: string) => PREVIEWED.has(language.trim().toLowerCase());

/** What the shell posts to the page when it can take the code; the page answers `{ html }`. */
export const PREVIEW_READY = 'agentq-preview-ready';

/** The shell's policy: nothing leaves the frame, and only our own pages may frame it. */
export const PREVIEW_CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  'font-src data:',
  'media-src data: blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** The shell: waits for its parent's code, once, and makes it the document. */
export const PREVIEW_SHELL = `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"></head><body><script>
addEventListener('message', (event) => {
  if (event.source !== parent || typeof event.data?.html !== 'string') return;
  document.open();
  document.write(event.data.html);
  document.close();
}, { once: true });
parent.postMessage({ type: '${PREVIEW_READY}' }, '*');
</script></body></html>`;
