import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, expectNoHorizontalOverflow, logInByApi, logInByBrowser } from './fixtures.ts';

const SLOW = { timeout: 15_000 };

describe('announcement banners', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;
  let user: Awaited<ReturnType<Stack['createUser']>>;

  beforeAll(async () => {
    stack = await startStack();
    user = await stack.createUser();
    browser = await launchBrowser();
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const signInAs = async (credentials?: { email: string; password: string }) => {
    await browser.context.clearCookies();
    await logInByBrowser(page, stack, credentials);
  };
  const banner = (text: string) => page.getByTestId('banner').filter({ hasText: text });
  const shownTexts = () => page.getByTestId('banner-text').allInnerTexts();

  async function postBanner(text: string, options: { kind: string; dismissible: boolean }) {
    await page.getByTestId('banner-new').click();
    await page.getByTestId('banner-kind').selectOption(options.kind);
    await page.getByTestId('banner-text-input').fill(text);
    if (!options.dismissible) await page.getByTestId('banner-dismissible').uncheck();
    await page.getByTestId('banner-editor-save').click();
    await page.getByTestId('banner-editor').waitFor({ state: 'detached' });
  }

  it('an admin posts a warning banner; a user sees it above the chat, dismisses it for good; a non-dismissible one stays; a new text shows again', async () => {
    await signInAs();
    await page.goto(`${stack.url}/admin`);
    await page.getByTestId('admin-entry-banners').click();
    await page.waitForURL(`${stack.url}/admin/banners`);
    await page.getByTestId('banners-empty').waitFor();

    // An empty text is refused next to the field.
    await page.getByTestId('banner-new').click();
    await page.getByTestId('banner-editor-save').click();
    expect(await page.getByTestId('banner-text-issue').textContent()).toBe('Write the announcement');
    await page.getByTestId('banner-editor-cancel').click();

    await postBanner('Maintenance tonight at **22:00**: see [the notes](https://example.com/notes)', { kind: 'warning', dismissible: true });
    expect(await page.getByTestId('banners-notice').textContent()).toBe('Posted the banner.');
    await postBanner('Do not paste customer secrets into chats', { kind: 'info', dismissible: false });
    const rows = page.getByTestId('banner-row');
    await expect.poll(() => rows.count(), SLOW).toBe(2);
    expect(await rows.getByTestId('banner-row-status').allInnerTexts()).toEqual(['Showing', 'Showing']);
    // The admin sees their banners on top at once.
    await expect.poll(shownTexts, SLOW).toEqual(['Do not paste customer secrets into chats', 'Maintenance tonight at 22:00: see the notes']);

    // A user, on the chat page: styled by kind, announced as a status, the Markdown rendered.
    await signInAs(user);
    await page.getByTestId('message-input').waitFor();
    const warning = banner('Maintenance tonight');
    await warning.waitFor();
    expect(await warning.getAttribute('data-kind')).toBe('warning');
    expect(await warning.getAttribute('role')).toBe('status');
    expect(await warning.locator('strong').textContent()).toBe('22:00');
    const link = warning.getByRole('link', { name: 'the notes' });
    expect(await link.getAttribute('href')).toBe('https://example.com/notes');
    expect(await link.getAttribute('target')).toBe('_blank');
    // The banners sit above the chat.
    const bannerBox = (await warning.boundingBox())!;
    const inputBox = (await page.getByTestId('message-input').boundingBox())!;
    expect(bannerBox.y + bannerBox.height).toBeLessThanOrEqual(inputBox.y);
    const rule = banner('Do not paste customer secrets');
    expect(await rule.getByTestId('banner-dismiss').count()).toBe(0);

    await warning.getByRole('button', { name: 'Dismiss' }).click();
    await warning.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByTestId('message-input').waitFor();
    await rule.waitFor();
    expect(await shownTexts()).toEqual(['Do not paste customer secrets into chats']);

    // Another device (a fresh sign-in): still dismissed.
    await signInAs(user);
    await rule.waitFor();
    expect(await shownTexts()).toEqual(['Do not paste customer secrets into chats']);

    // The admin changes the text: it shows again.
    const admin = await logInByApi(stack);
    const { items } = (await (await fetch(`${stack.url}/api/admin/banners`, { headers: admin })).json()) as { items: { id: string; text: string }[] };
    const posted = items.find((item) => item.text.startsWith('Maintenance'))!;
    const patch = await fetch(`${stack.url}/api/admin/banners/${posted.id}`, { method: 'PATCH', headers: admin, body: JSON.stringify({ text: 'Maintenance moved to 23:00' }) });
    expect(patch.status).toBe(200);
    await page.reload();
    await banner('Maintenance moved to 23:00').waitFor();
    expect(await shownTexts()).toEqual(['Do not paste customer secrets into chats', 'Maintenance moved to 23:00']);
  });

  it('an error banner is an alert; on a 390 px phone the banners and Admin → Banners fit without scrolling sideways', async () => {
    const admin = await logInByApi(stack);
    await createByApi(stack, admin, '/api/admin/banners', {
      kind: 'error',
      text: 'Sign-ins via SSO are failing: use your password meanwhile (https://status.example.com/incidents/very-long-incident-identifier-0123456789)',
    });
    await page.setViewportSize({ width: 390, height: 844 });
    await signInAs(user);
    const outage = banner('Sign-ins via SSO are failing');
    await outage.waitFor();
    expect(await outage.getAttribute('role')).toBe('alert');
    expect(await page.getByTestId('banner').count()).toBe(3);
    await expectNoHorizontalOverflow(page, 'chat with banners on a phone');
    // The × stays on screen.
    const close = (await outage.getByTestId('banner-dismiss').boundingBox())!;
    expect(close.x + close.width).toBeLessThanOrEqual(390);

    await signInAs();
    await page.goto(`${stack.url}/admin/banners`);
    await expect.poll(() => page.getByTestId('banner-row').count(), SLOW).toBe(3);
    await expectNoHorizontalOverflow(page, 'Admin → Banners on a phone', page.getByTestId('banners-table').locator('..'));
    await page.getByTestId('banner-new').click();
    await page.getByTestId('banner-editor').waitFor();
    await expectNoHorizontalOverflow(page, 'banner editor on a phone');
    await page.getByTestId('banner-editor-cancel').click();
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
