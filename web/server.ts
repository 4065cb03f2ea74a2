/**
 * The standalone web process (`npm run start:web`): adapter-node's own server (its graceful
 * shutdown, socket activation and env options stay), with two things it cannot be told otherwise.
 */
import http from 'node:http';
import { securityHeaders } from '@agentq/shared/http';

// The only bodies this process reads are the ones it forwards to the API, which applies its own
// limit and answers 413 itself; adapter-node's 512K default would cut uploads off with a 502.
process.env.BODY_SIZE_LIMIT ??= 'Infinity';

// Security headers on every response, static assets included (adapter-node serves those before
// any SvelteKit hook runs). Pages add their own Content-Security-Policy (kit.csp); a proxied API
// response brings the API's headers.
// No CSP among them: a 304 carrying a default policy would replace a cached page's kit.csp one.
const presetHeaders = Object.entries(securityHeaders({ https: process.env.PUBLIC_ORIGIN?.startsWith('https:') ?? false }));
const createServer = http.createServer;
http.createServer = function createServerWithSecurityHeaders(this: unknown, ...args: Parameters<typeof createServer>) {
  const server = createServer.apply(this, args);
  server.prependListener('request', (_request: http.IncomingMessage, response: http.ServerResponse) => {
    for (const [name, value] of presetHeaders) response.setHeader(name, value);
  });
  return server;
} as typeof createServer;

// From sources this file sits beside build/; compiled (`npm run build`) it is build/server.js itself.
const handlerEntry = import.meta.url.endsWith('/build/server.js') ? './index.js' : './build/index.js';
await import(new URL(handlerEntry, import.meta.url).href);
