import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import type { AppEnv } from '../deps';

const SCALAR_BUNDLE_URL = '/api/docs/scalar.js';
const APP_ICON_URL = '/favicon.svg';
let scalarBundle: Promise<string> | undefined;

/** The Scalar bundle comes from node_modules and is served by us: the docs page needs no CDN. */
function loadScalarBundle(): Promise<string> {
  scalarBundle ??= readFile(fileURLToPath(new URL('./browser/standalone.js', import.meta.resolve('@scalar/api-reference'))), 'utf8');
  return scalarBundle;
}

const scalarPage = Scalar<AppEnv>({ url: '/api/openapi.json', cdn: SCALAR_BUNDLE_URL, withDefaultFonts: false, pageTitle: 'agentq API' });

export const docsRoutes = new Hono<AppEnv>()
  .get('/scalar.js', async (c) => {
    c.header('content-type', 'text/javascript; charset=utf-8');
    c.header('cache-control', 'public, max-age=86400');
    return c.body(await loadScalarBundle());
  })
  .get('/', async (c, next) => {
    const page = await scalarPage(c, next);
    if (!page) return c.notFound();
    // The app's icon (the web serves it): without a link the browser asks for /favicon.ico, a 404.
    return c.html((await page.text()).replace('</head>', `  <link rel="icon" href="${APP_ICON_URL}" type="image/svg+xml" />\n  </head>`));
  });
