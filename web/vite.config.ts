import adapter from '@sveltejs/adapter-node';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [
    sveltekit({
      adapter: adapter(),
      // The app has no form actions: every mutation is a JSON call to the API, which judges
      // cross-site requests itself. Kit's origin check would otherwise reject proxied API
      // POSTs without a JSON body (adapter-node guesses the origin as https://<host>).
      csrf: { trustedOrigins: ['*'] },
    }),
  ],
});
