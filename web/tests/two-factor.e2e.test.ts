import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { expectNoHorizontalOverflow, logInByBrowser, submitLogin } from './fixtures.ts';

/** What an authenticator app holding `secret` shows `offsetMs` from now. */
const codeAt = (secret: string, offsetMs = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetMs });

describe('two-factor sign-in', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;
  let user: { email: string; password: string; id: string };

  beforeAll(async () => {
    stack = await startStack();
    user = await stack.createUser('user');
    browser = await launchBrowser();
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  async function signOut() {
    await browser.context.clearCookies();
    await page.goto(`${stack.url}/login`);
  }

  it('is set up from the account page with a QR code and a first code, asks for a code at sign-in, takes a recovery code once, and an admin can reset it', async () => {
    await logInByBrowser(page, stack, user);
    await page.goto(`${stack.url}/account`);
    const section = page.getByTestId('two-factor');
    await section.getByTestId('two-factor-setup').click();
    await section.getByTestId('two-factor-password').fill('not my password');
    await section.getByTestId('two-factor-continue').click();
    await section.getByTestId('two-factor-password-issue').waitFor();
    await section.getByTestId('two-factor-password').fill(user.password);
    await section.getByTestId('two-factor-continue').click();

    // A QR code drawn in the page, and the key to type in instead.
    await section.getByTestId('two-factor-qr').locator('svg').waitFor();
    const secret = (await section.getByTestId('two-factor-secret').innerText()).replace(/\s+/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await expectNoHorizontalOverflow(page);
    await section.getByTestId('two-factor-code').fill('000000' === codeAt(secret) ? '111111' : '000000');
    await section.getByTestId('two-factor-confirm').click();
    await section.getByTestId('two-factor-code-issue').waitFor();
    await section.getByTestId('two-factor-code').fill(codeAt(secret));
    await section.getByTestId('two-factor-confirm').click();

    await section.getByTestId('two-factor-recovery-codes').waitFor();
    const codes = await section.getByTestId('two-factor-recovery-codes').locator('code').allInnerTexts();
    expect(codes).toHaveLength(10);
    const download = page.waitForEvent('download');
    await section.getByTestId('two-factor-download').click();
    expect((await download).suggestedFilename()).toBe('agentq-recovery-codes.txt');
    await section.getByTestId('two-factor-done').click();
    expect(await section.getByTestId('two-factor-status').innerText()).toContain('10 recovery codes left');
    expect(await section.getByTestId('two-factor-recovery-codes').count()).toBe(0);

    // Signing in: the password first, then the code; a wrong one says so and keeps the form.
    await signOut();
    await submitLogin(page, user);
    await page.getByTestId('login-code-prompt').waitFor();
    await page.getByTestId('login-code').fill('fffff-fffff');
    await page.getByTestId('login-submit').click();
    expect(await page.getByTestId('login-error').innerText()).toContain('That code is not right');
    await page.getByTestId('login-code').fill(codeAt(secret, 30_000));
    await page.getByTestId('login-submit').click();
    await page.waitForURL(`${stack.url}/chat`);

    // A recovery code signs in once.
    await signOut();
    await submitLogin(page, user);
    await page.getByTestId('login-code').fill(codes[0]!);
    await page.getByTestId('login-submit').click();
    await page.waitForURL(`${stack.url}/chat`);
    await page.goto(`${stack.url}/account`);
    expect(await page.getByTestId('two-factor-status').innerText()).toContain('9 recovery codes left');
    await signOut();
    await submitLogin(page, user);
    await page.getByTestId('login-code').fill(codes[0]!);
    await page.getByTestId('login-submit').click();
    await page.getByTestId('login-error').waitFor();

    // Lost everything: an admin resets it from Users, and the password alone signs in again.
    await signOut();
    await logInByBrowser(page, stack);
    await page.goto(`${stack.url}/admin/users`);
    const row = page.locator(`[data-testid="user-row"][data-user-email="${user.email}"]`);
    await row.getByTestId('user-row-two-factor').waitFor();
    await row.getByTestId('user-reset-two-factor').click();
    await page.getByTestId('users-notice').waitFor();
    await row.getByTestId('user-row-two-factor').waitFor({ state: 'detached' });
    await signOut();
    await logInByBrowser(page, stack, user);
    await page.goto(`${stack.url}/account`);
    expect(await page.getByTestId('two-factor-status').innerText()).toContain('Off');
  });
});
