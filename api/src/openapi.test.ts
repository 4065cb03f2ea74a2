import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from './testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('OpenAPI', () => {
  it('is an OpenAPI 3 document listing every /api route', async () => {
    const response = await t.app.request('/api/openapi.json');
    expect(response.status).toBe(200);
    const spec = await response.json();
    expect(spec.openapi).toMatch(/^3\./);
    expect(spec.info.title).toBe('agentq API');
    const documented = new Set<string>();
    for (const [path, operations] of Object.entries(spec.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(operations)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    const served = t.app.routes
      .filter((route) => route.path.startsWith('/api/') && route.method !== 'ALL' && !route.path.startsWith('/api/docs') && route.path !== '/api/openapi.json')
      .map((route) => `${route.method} ${route.path.replace(/^\/api/, '').replace(/:(\w+)/g, '{$1}')}`);
    expect(served.length).toBeGreaterThan(10);
    for (const route of served) expect(documented, `${route} is undocumented`).toContain(route);
    expect(spec.paths['/auth/login'].post.requestBody).toBeTruthy();
  });

  it('serves the interactive docs with a bundled script and no CDN', async () => {
    const page = await t.app.request('/api/docs');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/api/docs/scalar.js');
    expect(html).toContain('/api/openapi.json');
    expect(html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml" />');
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg|fonts|jsdelivr)/);
    const script = await t.app.request('/api/docs/scalar.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });
});
