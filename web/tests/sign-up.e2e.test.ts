import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { expectNoHorizontalOverflow, logInByBrowser } from './fixtures.ts';

const PASSWORD = 'a long password';
const uniqueEmail = (label: string) => `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`;

async function fillSignUp(page: Page, who: { name: string; email: string }, confirm = PASSWORD) {
  await page.getByTestId('sign-up-start').click();
  await page.getByTestId('sign-up-name').fill(who.name);
  await page.getByTestId('sign-up-email').fill(who.email);
  await page.getByTestId('sign-up-password').fill(PASSWORD);
  await page.getByTestId('sign-up-confirm').fill(confirm);
  await page.getByTestId('sign-up-submit').click();
}

describe('signing up where an admin approves new accounts', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    stack = await startStack({ env: { SIGNUP: 'approval' } });
    browser = await launchBrowser();
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('makes an account that waits for an admin, who approves it on Users; then it logs in', async () => {
    const who = { name: 'Grace Hopper', email: uniqueEmail('signup') };
    await page.goto(`${stack.url}/login`);
    // A typo in the repeated password is caught before anything is sent.
    await fillSignUp(page, who, 'another password');
    await page.getByTestId('sign-up-error').waitFor();
    await page.getByTestId('sign-up-to-sign-in').click();

    await fillSignUp(page, who);
    expect(await page.getByTestId('sign-up-awaiting').innerText()).toContain('An administrator has to approve your account');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalOverflow(page, 'sign-up at 390 px');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByTestId('sign-up-back').click();
    await page.getByTestId('login-email').fill(who.email);
    await page.getByTestId('login-password').fill(PASSWORD);
    await page.getByTestId('login-submit').click();
    expect(await page.getByTestId('login-error').innerText()).toContain('An administrator has to approve your account');

    await logInByBrowser(page, stack);
    await page.goto(`${stack.url}/admin/users`);
    expect(await page.getByTestId('users-awaiting').innerText()).toContain('Sign-ups awaiting your approval: 1.');
    await page.getByTestId('users-awaiting-link').click();
    await page.waitForURL(/awaiting=true/);
    await expect.poll(() => page.getByTestId('user-row').count()).toBe(1);
    const row = page.locator(`[data-testid="user-row"][data-user-email="${who.email}"]`);
    expect(await row.getByTestId('user-row-status').locator('.pill').innerText()).toBe('Awaiting approval');
    await row.getByTestId('user-approve').click();
    expect(await page.getByTestId('users-notice').innerText()).toBe('Approved Grace Hopper: they can log in now.');
    await expect.poll(() => page.getByTestId('user-row').count()).toBe(0);

    await browser.context.clearCookies();
    await logInByBrowser(page, stack, { email: who.email, password: PASSWORD });
  });
});

describe('signing up where anyone may', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;

  beforeAll(async () => {
    stack = await startStack({ env: { SIGNUP: 'open', SIGNUP_EMAIL_DOMAINS: 'example.com' } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('signs the new account straight in, and names the domains it takes', async () => {
    const { page } = browser;
    await page.goto(`${stack.url}/login`);
    await fillSignUp(page, { name: 'Ada', email: 'ada@elsewhere.org' });
    expect(await page.getByTestId('sign-up-email-issue').innerText()).toBe('Use an address at example.com');
    await page.getByTestId('sign-up-email').fill(uniqueEmail('open'));
    await page.getByTestId('sign-up-submit').click();
    await page.waitForURL(`${stack.url}/chat`);
  });
});
