import type { Page } from 'playwright-core';
import { startTestSmtpServer, linkInEmail } from '@agentq/shared/testing/smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, expectNoHorizontalOverflow, logInByApi, logInByBrowser, submitLogin } from './fixtures.ts';

const uniqueEmail = (label: string) => `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`;

describe('email: forgot password and sign-up confirmation', () => {
  let smtp: Awaited<ReturnType<typeof startTestSmtpServer>>;
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    smtp = await startTestSmtpServer({ user: 'mailer', pass: 'smtp-password' });
    stack = await startStack({
      env: (url) => ({ PUBLIC_ORIGIN: url, SMTP_URL: smtp.url, SMTP_FROM: 'agentq <noreply@agentq.test>', SIGNUP: 'open', SIGNUP_VERIFY_EMAIL: '1' }),
    });
    browser = await launchBrowser();
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await smtp?.close();
  });

  it('forgot password → the emailed link → a new password → logs in with it', async () => {
    const email = uniqueEmail('forgot');
    await createByApi(stack, await logInByApi(stack), '/api/users', { email, name: 'Ada Lovelace', password: 'the old password' });

    await page.goto(`${stack.url}/login`);
    await page.getByTestId('login-forgot').click();
    await page.waitForURL(`${stack.url}/forgot-password`);
    await page.getByTestId('forgot-email').fill(email);
    await page.getByTestId('forgot-submit').click();
    expect(await page.getByTestId('forgot-sent').innerText()).toContain(`If an account uses ${email}, a link to reset its password is on its way.`);
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalOverflow(page, 'forgot password at 390 px');
    await page.setViewportSize({ width: 1280, height: 900 });

    const mail = await smtp.waitFor((received) => received.to.includes(email));
    const link = linkInEmail(mail);
    expect(link.startsWith(`${stack.url}/reset-password#token=`)).toBe(true);
    await page.goto(link);
    // The secret leaves the address bar once read.
    await page.getByTestId('reset-form').waitFor();
    expect(page.url()).toBe(`${stack.url}/reset-password`);
    await page.getByTestId('reset-new-password').fill('short');
    await page.getByTestId('reset-confirm-password').fill('short');
    await page.getByTestId('reset-submit').click();
    expect(await page.getByTestId('reset-password-issue').innerText()).toContain('at least 8 characters');
    await page.getByTestId('reset-new-password').fill('a brand new password');
    await page.getByTestId('reset-confirm-password').fill('a brand new password');
    await page.getByTestId('reset-submit').click();
    expect(await page.getByTestId('reset-done').innerText()).toContain('Your password is changed');

    // The link worked once.
    await page.goto(link);
    await page.getByTestId('reset-new-password').fill('yet another password');
    await page.getByTestId('reset-confirm-password').fill('yet another password');
    await page.getByTestId('reset-submit').click();
    expect(await page.getByTestId('reset-invalid').innerText()).toContain('This link does not work any more');

    await page.goto(`${stack.url}/login`);
    await submitLogin(page, { email, password: 'the old password' });
    expect(await page.getByTestId('login-error').innerText()).toContain('Email or password is incorrect');
    await submitLogin(page, { email, password: 'a brand new password' });
    await page.waitForURL(`${stack.url}/chat`);
    await browser.context.clearCookies();
  });

  it('a sign-up confirms its email before it logs in, and can have the link sent again', async () => {
    const email = uniqueEmail('confirm');
    await page.goto(`${stack.url}/login`);
    await page.getByTestId('sign-up-start').click();
    await page.getByTestId('sign-up-name').fill('Grace Hopper');
    await page.getByTestId('sign-up-email').fill(email);
    await page.getByTestId('sign-up-password').fill('a long password');
    await page.getByTestId('sign-up-confirm').fill('a long password');
    await page.getByTestId('sign-up-submit').click();
    expect(await page.getByTestId('sign-up-check-email').innerText()).toContain(`We emailed a link to ${email}.`);
    await smtp.waitFor((received) => received.to.includes(email));

    await page.getByTestId('sign-up-back').click();
    await submitLogin(page, { email, password: 'a long password' });
    expect(await page.getByTestId('login-error').innerText()).toContain('Confirm your email first');
    await page.getByTestId('login-resend-verification').click();
    expect(await page.getByTestId('login-resend-sent').innerText()).toContain(email);
    await expect.poll(() => smtp.to(email).length, { timeout: 15_000 }).toBe(2);
    const [first, second] = smtp.to(email);

    // The older link was replaced by the newer one.
    await page.goto(linkInEmail(first!));
    expect(await page.getByTestId('verify-failed').innerText()).toContain('This link does not work any more');
    await page.goto(linkInEmail(second!));
    expect(await page.getByTestId('verify-done').innerText()).toContain('Your email is confirmed');
    await page.getByTestId('verify-sign-in').click();
    await submitLogin(page, { email, password: 'a long password' });
    await page.waitForURL(`${stack.url}/chat`);
  });

  it('Admin → Users shows an unconfirmed sign-up as "Email unverified" and can mark it verified', async () => {
    await browser.context.clearCookies();
    const email = uniqueEmail('unconfirmed');
    const made = await fetch(`${stack.url}/api/auth/sign-up`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, name: 'Unconfirmed', password: 'a long password' }) });
    expect(made.status).toBe(202);

    await logInByBrowser(page, stack);
    await page.goto(`${stack.url}/admin/users`);
    const row = page.locator(`[data-testid="user-row"][data-user-email="${email}"]`);
    expect(await row.getByTestId('user-row-unverified').innerText()).toBe('Email unverified');
    await row.getByTestId('user-mark-verified').click();
    expect(await page.getByTestId('users-notice').innerText()).toBe('Marked the email of Unconfirmed verified: they can log in now.');
    await expect.poll(() => row.getByTestId('user-row-unverified').count()).toBe(0);

    await browser.context.clearCookies();
    await logInByBrowser(page, stack, { email, password: 'a long password' });
  });
});
