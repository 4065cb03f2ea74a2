import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { logInByApi, logInByBrowser, startLoopback, submitLogin } from './fixtures.ts';

/**
 * Issue 12 in a real browser: framing (finding 4), a cross-site form POST with a Basic
 * Authorization header riding along (finding 2), the CSP on every kind of page we serve, and the
 * login form's throttling message (finding 1).
 */
describe('security in the browser', { timeout: 180_000 }, () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let attacker: Awaited<ReturnType<typeof startLoopback>>;
  let attackerPage = '';

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchBrowser();
    // Another origin on the same machine (another port: cross-origin, yet same-site, so the Lax
    // session cookie still goes along; only the origin check stands in the way).
    attacker = await startLoopback((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(attackerPage);
    });
  }, 180_000);

  afterAll(async () => {
    await attacker?.close();
    await browser?.close();
    await stack?.stop();
  });

  /** Signs in from a clean slate (the login page sends a signed-in browser on to the chat). */
  async function freshLogIn() {
    await browser.context.clearCookies();
    await logInByBrowser(browser.page, stack);
  }

  /** CSP violations and CSP console errors of the page from now on. */
  function watchCsp() {
    const violations: string[] = [];
    const onConsole = (message: { type: () => string; text: () => string }) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    };
    browser.page.on('console', onConsole);
    return { violations, stop: () => browser.page.off('console', onConsole) };
  }

  it('a page of another origin cannot frame the app: the approvals page never renders in the iframe', async () => {
    const { page } = browser;
    await freshLogIn();
    attackerPage = `<!doctype html><title>win a prize</title><iframe id="victim" src="${stack.url}/approvals" width="800" height="600"></iframe>`;
    const refused: string[] = [];
    page.on('console', (message) => refused.push(message.text()));
    await page.goto(attacker.url);
    await page.waitForLoadState('load');
    await page.waitForTimeout(1000);

    const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
    expect(frame).toBeDefined();
    // Chromium replaces a refused frame with its error page: nothing of the app is inside.
    expect(frame!.url().startsWith(stack.url)).toBe(false);
    expect(await frame!.locator('[data-testid="approvals-page"], nav, button').count()).toBe(0);
    expect(refused.join('\n')).toMatch(/frame-ancestors|X-Frame-Options/);
  });

  it('a cross-site form POST with a Basic Authorization header is refused and creates nothing', async () => {
    const { page, context } = browser;
    const headers = await logInByApi(stack);
    const sessionsBefore = (await (await fetch(`${stack.url}/api/sessions`, { headers })).json()) as { items: unknown[] };
    await freshLogIn();
    // What a Basic-auth reverse proxy in front of agentq makes the browser send with every request.
    await context.setExtraHTTPHeaders({ authorization: 'Basic YTpi' });
    try {
      attackerPage = `<!doctype html><form id="f" method="POST" action="${stack.url}/api/sessions" enctype="text/plain">
        <input name='{"title":"forged","x":"' value='"}'></form><script>document.getElementById('f').submit()</script>`;
      const answer = page.waitForResponse((response) => response.url() === `${stack.url}/api/sessions` && response.request().method() === 'POST');
      await page.goto(attacker.url);
      const response = await answer;
      expect(response.status()).toBe(403);
      expect(await response.text()).toContain('cross_origin');
    } finally {
      await context.setExtraHTTPHeaders({});
    }
    const sessionsAfter = (await (await fetch(`${stack.url}/api/sessions`, { headers })).json()) as { items: unknown[] };
    expect(sessionsAfter.items.length).toBe(sessionsBefore.items.length);
  });

  it('the app, the queue board and the API docs work under their CSP without a single violation', async () => {
    const { page } = browser;
    await freshLogIn();
    const csp = watchCsp();
    try {
      for (const path of ['/chat', '/approvals', '/admin/tools']) {
        const response = await page.goto(`${stack.url}${path}`);
        expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
        await page.locator('main').first().waitFor();
      }
      const board = await page.goto(`${stack.url}/admin/queues`);
      expect(board?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
      await page.getByText('agentq queues').first().waitFor({ timeout: 30_000 });
      await page.getByText('chat-turns').first().waitFor({ timeout: 30_000 });

      await page.goto(`${stack.url}/api/docs`);
      await page.getByText('agentq API').first().waitFor({ timeout: 30_000 });
      await page.getByText('/auth/login').first().waitFor({ timeout: 30_000 });
      expect(csp.violations).toEqual([]);
    } finally {
      csp.stop();
    }
  });

  it('an injected inline script does not run (no unsafe-inline scripts)', async () => {
    const { page } = browser;
    await browser.context.clearCookies();
    await page.goto(`${stack.url}/login`);
    await page.getByTestId('login-form').waitFor();
    const blocked = await page.evaluate(
      () =>
        new Promise<{ ran: boolean; violated: string }>((resolve) => {
          document.addEventListener('securitypolicyviolation', (event) => resolve({ ran: 'pwned' in window, violated: event.violatedDirective }), { once: true });
          const script = document.createElement('script');
          script.textContent = 'window.pwned = true';
          document.head.append(script);
          setTimeout(() => resolve({ ran: 'pwned' in window, violated: '' }), 2000);
        }),
    );
    expect(blocked).toEqual({ ran: false, violated: expect.stringMatching(/^script-src/) });
  });

  it('the login form says clearly when sign-in is throttled', async () => {
    const { page } = browser;
    const user = await stack.createUser();
    for (let attempt = 0; attempt < 10; attempt++) {
      const response = await fetch(`${stack.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: user.email, password: 'wrong-password' }) });
      expect(response.status).toBe(401);
    }
    await page.context().clearCookies();
    await page.goto(`${stack.url}/login`);
    await submitLogin(page, user);
    const error = page.getByTestId('login-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/Too many failed sign-ins\. Try again in \d+ minutes?\./);
    expect(page.url()).toContain('/login');
  });
});
