import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import type { AppEnv } from '../deps';

const SCALAR_BUNDLE_URL = '/api/docs/scalar.js';
let scalarBundle: Promise<string> | undefined;

/** The Scalar bundle comes from node_modules and is served by us: the docs page needs no CDN. */
function loadScalarBundle(): Promise<string> {
  scalarBundle ??= readFile(fileURLToPath(new URL('./browser/standalone.js', import.meta.resolve('@scalar/api-reference'))), 'utf8');
  return scalarBundle;
}

export const docsRoutes = new Hono<AppEnv>()
  .get('/scalar.js', async (c) => {
    c.header('content-type', 'text/javascript; charset=utf-8');
    c.header('cache-control', 'public, max-age=86400');
    return c.body(await loadScalarBundle());
  })
  .get('/', Scalar({ url: '/api/openapi.json', cdn: SCALAR_BUNDLE_URL, withDefaultFonts: false, pageTitle: 'agentq API' }));
