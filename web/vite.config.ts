import adapter from '@sveltejs/adapter-node';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  // Mermaid's and KaTeX's chunks are large, and loaded only when an answer holds a diagram or a formula.
  build: { chunkSizeWarningLimit: 1600 },
  plugins: [
    sveltekit({
      adapter: adapter(),
      // The app has no form actions: every mutation is a JSON call to the API, which judges
      // cross-site requests itself. Kit's origin check would otherwise reject proxied API
      // POSTs without a JSON body (adapter-node guesses the origin as https://<host>).
      csrf: { trustedOrigins: ['*'] },
      // Every page's policy: scripts only from our origin plus Kit's own inline boot script,
      // allowed by hash (never 'unsafe-inline'); no framing anywhere (clickjacking).
      csp: {
        mode: 'hash',
        directives: {
          'default-src': ['self'],
          // WebAssembly compilation only (code highlighters use it); JavaScript eval stays blocked.
          'script-src': ['self', 'wasm-unsafe-eval'],
          // Svelte transitions and the UI's style attributes; CSS cannot run code.
          'style-src': ['self', 'unsafe-inline'],
          'img-src': ['self', 'data:', 'blob:'],
          'font-src': ['self', 'data:'],
          'connect-src': ['self'],
          'worker-src': ['self', 'blob:'],
          // Only our own pages in frames: a code preview's script or link cannot take its frame elsewhere.
          'frame-src': ['self'],
          'object-src': ['none'],
          'base-uri': ['self'],
          'form-action': ['self'],
          'frame-ancestors': ['none'],
        },
      },
    }),
  ],
});
