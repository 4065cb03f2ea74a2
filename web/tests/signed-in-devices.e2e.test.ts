import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { expectNoHorizontalOverflow, logInByBrowser } from './fixtures.ts';

const LAPTOP_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const PHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

describe("where you're signed in", () => {
  let stack: Stack;
  let browser: Browser;
  let laptop: BrowserContext;
  let phone: BrowserContext;
  let user: { email: string; password: string; id: string };

  beforeAll(async () => {
    stack = await startStack();
    user = await stack.createUser('user');
    // One Chromium (Debian's; never downloaded), two contexts: two browsers with cookies of their own.
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    laptop = await browser.newContext({ userAgent: LAPTOP_UA });
    phone = await browser.newContext({ userAgent: PHONE_UA, viewport: { width: 390, height: 844 } });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const rows = (page: Page) => page.getByTestId('signed-in-devices').getByTestId('device-row');
  const currentRow = (page: Page) => page.locator('[data-testid="device-row"][data-current]');
  const otherRow = (page: Page) => page.locator('[data-testid="device-row"]:not([data-current])');
  /** A click inside the app (a client-side navigation) lands a signed-out browser on the sign-in page. */
  async function expectBouncedToLogin(page: Page) {
    await page.getByTestId('account-tab-tokens').click();
    await page.waitForURL((url) => url.pathname === '/login');
  }

  it('lists both browsers, this one marked, signs the other out at once, and then all others', async () => {
    const [laptopPage, phonePage] = [await laptop.newPage(), await phone.newPage()];
    await logInByBrowser(laptopPage, stack, user);
    await logInByBrowser(phonePage, stack, user);

    await laptopPage.goto(`${stack.url}/account`);
    await expect.poll(() => rows(laptopPage).count()).toBe(2);
    expect(await currentRow(laptopPage).getByTestId('device-name').innerText()).toBe('Chrome 131 on macOS');
    expect(await currentRow(laptopPage).getByTestId('device-current').innerText()).toBe('This device');
    expect(await currentRow(laptopPage).getByTestId('device-last-active').innerText()).toBe('Active now');
    expect(await otherRow(laptopPage).getByTestId('device-name').innerText()).toBe('Safari 17 on iOS');
    expect(await otherRow(laptopPage).getByTestId('device-address').innerText()).toBe('127.0.0.1');
    expect(await otherRow(laptopPage).getByTestId('device-current').count()).toBe(0);

    // On the phone, the phone is "This device", and the section fits 390 px.
    await phonePage.goto(`${stack.url}/account`);
    await expect.poll(() => rows(phonePage).count()).toBe(2);
    expect(await currentRow(phonePage).getByTestId('device-name').innerText()).toBe('Safari 17 on iOS');
    await currentRow(phonePage).scrollIntoViewIfNeeded();
    await expectNoHorizontalOverflow(phonePage, 'account page at 390 px');

    await otherRow(laptopPage).getByTestId('device-sign-out').click();
    expect(await laptopPage.getByTestId('devices-notice').innerText()).toBe('Signed out Safari 17 on iOS.');
    await expect.poll(() => rows(laptopPage).count()).toBe(1);
    await laptopPage.getByTestId('devices-only-this').waitFor();
    await expectBouncedToLogin(phonePage);

    // Signed in again on the phone: "Sign out all other sessions", after a confirm.
    await logInByBrowser(phonePage, stack, user);
    await laptopPage.reload();
    await expect.poll(() => rows(laptopPage).count()).toBe(2);
    await laptopPage.getByTestId('devices-sign-out-others').click();
    await laptopPage.getByTestId('devices-sign-out-others-confirm').click();
    expect(await laptopPage.getByTestId('devices-notice').innerText()).toBe('Other sessions signed out: 1.');
    await expect.poll(() => rows(laptopPage).count()).toBe(1);
    await phonePage.goto(`${stack.url}/account`);
    await phonePage.waitForURL((url) => url.pathname === '/login');

    // The laptop is still signed in.
    await laptopPage.reload();
    await currentRow(laptopPage).getByTestId('device-current').waitFor();

    // A password change signs every other browser out, and the list shows it without a reload.
    await logInByBrowser(phonePage, stack, user);
    await laptopPage.reload();
    await expect.poll(() => rows(laptopPage).count()).toBe(2);
    await laptopPage.getByTestId('password-current').fill(user.password);
    await laptopPage.getByTestId('password-new').fill('a new password 2');
    await laptopPage.getByTestId('password-confirm').fill('a new password 2');
    await laptopPage.getByTestId('password-submit').click();
    await laptopPage.getByTestId('password-notice').waitFor();
    await expect.poll(() => rows(laptopPage).count()).toBe(1);
    await currentRow(laptopPage).getByTestId('device-current').waitFor();
    await phonePage.goto(`${stack.url}/account`);
    await phonePage.waitForURL((url) => url.pathname === '/login');
  });
});
