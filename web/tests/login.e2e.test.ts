import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { submitLogin, type Credentials } from './fixtures.ts';

describe('login and navigation', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchBrowser();
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  beforeEach(async () => {
    await browser.context.clearCookies();
  });

  async function logIn(credentials: Credentials) {
    await page.goto(`${stack.url}/login`);
    await submitLogin(page, credentials);
  }

  it('logs the admin in through the form and shows every section; the signed-out sign-in page logs no error', async () => {
    const consoleErrors: string[] = [];
    const onConsole = (message: { type(): string; text(): string }) => void (message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('console', onConsole);
    await page.goto(`${stack.url}/login`);
    await page.getByTestId('login-email').waitFor();
    page.off('console', onConsole);
    expect(consoleErrors).toEqual([]);
    await submitLogin(page, stack.admin);

    await page.waitForURL(`${stack.url}/chat`);
    for (const testId of ['nav-chat', 'nav-documents', 'nav-approvals', 'nav-admin']) {
      await page.getByTestId(testId).waitFor();
    }
    expect(await page.getByTestId('nav-user').textContent()).toContain(stack.admin.email);

    await page.getByTestId('nav-admin').click();
    await page.waitForURL(`${stack.url}/admin`);
    for (const entry of ['tools', 'tool-logs', 'models', 'agents', 'workers']) {
      await page.getByTestId(`admin-entry-${entry}`).waitFor();
    }
  });

  it('shows the API error for a wrong password and stays on the login page', async () => {
    await logIn({ email: stack.admin.email, password: `${stack.admin.password}-wrong` });

    const error = page.getByTestId('login-error');
    await error.waitFor();
    expect((await error.textContent())?.trim()).not.toBe('');
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.getByTestId('nav-chat').count()).toBe(0);
  });

  it('gives a plain user no Admin entry and a forbidden message at /admin', async () => {
    const user = await stack.createUser('user');
    await logIn(user);

    await page.waitForURL(`${stack.url}/chat`);
    await page.getByTestId('nav-approvals').waitFor();
    expect(await page.getByTestId('nav-admin').count()).toBe(0);

    await page.goto(`${stack.url}/admin`);
    const panel = page.getByTestId('error-panel');
    await panel.waitFor();
    expect(await panel.textContent()).toMatch(/forbidden/i);
    expect(await page.getByTestId('admin-dashboard').count()).toBe(0);
  });

  it('sends a visitor without a session to log in, then back where they were going', async () => {
    await page.goto(`${stack.url}/documents`);
    await page.waitForURL(`${stack.url}/login?next=%2Fdocuments`);

    await submitLogin(page, stack.admin);
    await page.waitForURL(`${stack.url}/documents`);
  });

  it('logs out back to the login page, and the session is gone', async () => {
    await logIn(stack.admin);
    await page.waitForURL(`${stack.url}/chat`);

    await page.getByTestId('logout-button').click();
    await page.waitForURL(`${stack.url}/login`);
    await page.getByTestId('login-form').waitFor();

    await page.goto(`${stack.url}/chat`);
    await page.waitForURL(`${stack.url}/login?next=%2Fchat`);
  });
});
