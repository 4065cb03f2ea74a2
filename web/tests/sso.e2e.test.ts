import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOidcProvider, type FakeOidcProvider } from '../../infra/testing/fake-oidc-provider.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { expectNoHorizontalOverflow, logInByBrowser } from './fixtures.ts';

describe('single sign-on (OpenID Connect) in the browser', () => {
  let provider: FakeOidcProvider;
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    provider = await startFakeOidcProvider();
    stack = await startStack({
      env: (url) => ({
        PUBLIC_ORIGIN: url,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_DISPLAY_NAME: 'Acme ID',
        // The fake provider speaks plain http on 127.0.0.1 (the only issuer this flag allows).
        OIDC_ALLOW_INSECURE_HTTP: '1',
      }),
    });
    browser = await launchBrowser();
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await provider?.close();
  });

  async function signOut() {
    await browser.context.clearCookies();
  }

  const person = () => ({ sub: `sub-${randomBytes(5).toString('hex')}`, email: `sso-${randomBytes(4).toString('hex')}@acme.test`, email_verified: true, name: 'Grace Hopper' });

  it('signs in with the provider from the login page and lands in the chat, or where the person was going', async () => {
    const who = person();
    provider.setLogin({ claims: who });
    await page.goto(`${stack.url}/login`);
    const button = page.getByTestId('sso-button');
    expect(await button.innerText()).toBe('Sign in with Acme ID');
    // The password form stays for everyone else (an admin, say).
    await page.getByTestId('login-password').waitFor();
    await page.setViewportSize({ width: 390, height: 800 });
    await expectNoHorizontalOverflow(page, 'login page with SSO, phone width');
    await page.setViewportSize({ width: 1280, height: 800 });
    await button.click();
    await page.waitForURL(`${stack.url}/chat`);
    await page.getByTestId('message-input').waitFor();
    const me = await page.evaluate(async () => (await (await fetch('/api/auth/me')).json()) as { user: { email: string; name: string; hasPassword: boolean } });
    expect(me.user).toMatchObject({ email: who.email, name: 'Grace Hopper', hasPassword: false });

    // No password to change for this account: the Account page says where sign-in is managed instead.
    await page.goto(`${stack.url}/account`);
    await page.getByTestId('sso-account-note').waitFor();
    expect(await page.getByTestId('password-form').count()).toBe(0);

    // A deep link while signed out: through the provider (already known) and back to it.
    await signOut();
    await page.goto(`${stack.url}/documents`);
    await page.waitForURL(`${stack.url}/login?next=%2Fdocuments`);
    await page.getByTestId('sso-button').click();
    await page.waitForURL(`${stack.url}/documents`);

    // The admin still signs in with a password.
    await signOut();
    await logInByBrowser(page, stack);
  });

  it('explains on the login page why a single sign-on failed', async () => {
    await signOut();
    provider.setLogin({ error: 'access_denied' });
    await page.goto(`${stack.url}/login`);
    await page.getByTestId('sso-button').click();
    await page.waitForURL(`${stack.url}/login?sso_error=provider_error`);
    expect(await page.getByTestId('sso-error').innerText()).toContain('cancelled or refused at your identity provider');

    provider.setLogin({ claims: { ...person(), email_verified: false } });
    await page.getByTestId('sso-button').click();
    await page.waitForURL(`${stack.url}/login?sso_error=email_not_verified`);
    expect(await page.getByTestId('sso-error').innerText()).toContain('did not confirm your email address');
    // Still signed out.
    expect(await page.evaluate(async () => (await fetch('/api/auth/me')).status)).toBe(401);
  });
});
