import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcessStack, type ProcessStack } from '../../infra/testing/process-stack.ts';
import { freePort } from '../../infra/scripts/redis-child.ts';

/**
 * The production shape's web process (`npm run start:web`: web/server.ts) in front of a real API
 * process: request bodies stream through the proxy with the API's status (issue 12, finding 8),
 * an outage is a short 502, cross-site writes stay refused through the proxy, and every response
 * carries the security headers.
 */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let stack: ProcessStack;
let web: ChildProcess;
let webUrl: string;
let webOutput = '';

/** `npm run start:web` (web/server.ts) on a free loopback port in front of the stack's API. */
async function startWebProcess(env: Record<string, string> = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', `${repoRoot}web/server.ts`], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', API_URL: stack.apiUrl, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = { child, url: `http://127.0.0.1:${port}`, output: '' };
  child.stdout!.on('data', (chunk) => (started.output += chunk));
  child.stderr!.on('data', (chunk) => (started.output += chunk));
  const deadline = Date.now() + 30_000;
  while (!(await fetch(`${started.url}/api/health`).then((response) => response.ok, () => false))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`web process did not start:\n${started.output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return started;
}

async function stopWebProcess(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  stack = await startProcessStack({ workers: 0 });
  const started = await startWebProcess();
  web = started.child;
  webUrl = started.url;
  // One log for the whole file: what the process wrote before and after start-up.
  webOutput = started.output;
  web.stdout!.on('data', (chunk) => (webOutput += chunk));
  web.stderr!.on('data', (chunk) => (webOutput += chunk));
}, 120_000);

afterAll(async () => {
  await stopWebProcess(web);
  await stack?.stop();
});

async function adminCookie(): Promise<string> {
  const login = await fetch(`${webUrl}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(stack.admin) });
  expect(login.status, webOutput.slice(-2000)).toBe(200);
  return login.headers.get('set-cookie')!.split(';')[0]!;
}

describe('web process proxy', () => {
  it('streams a body over 512 KB to the API and passes its answer through (400 under the API limit, 413 over it)', async () => {
    const cookie = await adminCookie();
    const headers = { cookie, 'content-type': 'application/json' };
    // 600 KB: past adapter-node's old 512K default, under the API's 1 MB: the API itself judges it.
    const medium = await fetch(`${webUrl}/api/sessions`, { method: 'POST', headers, body: JSON.stringify({ title: 'x'.repeat(600 * 1024) }) });
    expect(medium.status).toBe(400);
    expect((await medium.json()).error.code).toBe('validation_failed');

    const huge = await fetch(`${webUrl}/api/sessions`, { method: 'POST', headers, body: JSON.stringify({ title: 'x'.repeat(3 * 1024 * 1024) }) });
    expect(huge.status, webOutput.slice(-1500)).toBe(413);
    expect((await huge.json()).error.code).toBe('payload_too_large');

    // Without a content-length (chunked), too.
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (sent++ >= 32) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const chunked = await fetch(`${webUrl}/api/sessions`, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
    expect(chunked.status, webOutput.slice(-1500)).toBe(413);
    expect(webOutput).not.toMatch(/\n\s+at /);
  });

  it('refuses a cross-site cookie write with a Basic Authorization header through the proxy too (finding 2)', async () => {
    const cookie = await adminCookie();
    const response = await fetch(`${webUrl}/api/sessions`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: 'http://evil.example', authorization: 'Basic YTpi' },
      body: '{}',
    });
    expect(response.status).toBe(403);
    const same = await fetch(`${webUrl}/api/sessions`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', origin: webUrl }, body: '{}' });
    expect(same.status).toBe(201);
  });

  it('sends the security headers on pages, static assets and proxied API answers', async () => {
    const page = await fetch(`${webUrl}/login`);
    const html = await page.text();
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'self' 'wasm-unsafe-eval' 'sha256-/);
    expect(/script-src[^;]*unsafe-inline/.test(csp)).toBe(false);
    const asset = /(?:src|href)="(\/_app\/immutable\/[^"]+\.js)"/.exec(html)?.[1] ?? '/favicon.svg';
    for (const response of [page, await fetch(`${webUrl}${asset}`), await fetch(`${webUrl}/favicon.svg`), await fetch(`${webUrl}/api/health`)]) {
      expect(response.status, response.url).toBe(200);
      expect(response.headers.get('x-frame-options'), response.url).toBe('DENY');
      expect(response.headers.get('x-content-type-options'), response.url).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), response.url).toBe('same-origin');
      // Plain http (no https PUBLIC_ORIGIN): no HSTS, which would pin a host that has no TLS.
      expect(response.headers.get('strict-transport-security'), response.url).toBeNull();
    }
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await fetch(`${webUrl}/api/health`)).headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('adds HSTS to pages, static assets and proxied API answers when PUBLIC_ORIGIN is https', async () => {
    const secure = await startWebProcess({ PUBLIC_ORIGIN: 'https://agentq.example' });
    try {
      const page = await fetch(`${secure.url}/login`);
      const asset = /(?:src|href)="(\/_app\/immutable\/[^"]+\.js)"/.exec(await page.text())?.[1] ?? '/favicon.svg';
      for (const response of [page, await fetch(`${secure.url}${asset}`), await fetch(`${secure.url}/api/health`)]) {
        expect(response.status, response.url).toBe(200);
        expect(response.headers.get('strict-transport-security'), response.url).toBe('max-age=31536000; includeSubDomains');
        expect(response.headers.get('x-frame-options'), response.url).toBe('DENY');
      }
    } finally {
      await stopWebProcess(secure.child);
    }
  });

  it('answers 502 in one log line, no stack trace, when the API is down', async () => {
    await stack.api.stop();
    const before = webOutput.length;
    const response = await fetch(`${webUrl}/api/auth/me`);
    expect(response.status).toBe(502);
    expect((await response.json()).error.code).toBe('bad_gateway');
    const logged = webOutput.slice(before);
    expect(logged).toMatch(/API proxy: GET \/api\/auth\/me failed: .*ECONNREFUSED/);
    expect(logged).not.toMatch(/\n\s+at /);
  });
});
