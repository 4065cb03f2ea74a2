/**
 * Token usage limits: an admin sets a small default daily limit on Admin → Usage; a user's first
 * message (the fake model reports 1,234 tokens) passes, the next is refused in the composer with when
 * it resets; Account → Usage shows the bar; the admin lifts the user's limit on Admin → Users
 * ("Unlimited") and the send works again.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, lastAssistant, logInByApi, logInByBrowser, type Credentials } from './fixtures.ts';

describe('token usage limits', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let user: Credentials & { id: string };

  const signInAs = async (credentials: Credentials) => {
    await page.context().clearCookies();
    await logInByBrowser(page, stack, credentials);
  };

  beforeAll(async () => {
    llm = await startFakeLlm({ script: () => ({ text: 'Counted.', usage: { promptTokens: 1000, completionTokens: 234 } }) });
    stack = await startStack();
    const admin = await logInByApi(stack);
    await createByApi(stack, admin, '/api/models', { name: 'Metered model', baseUrl: llm.url, modelId: 'metered', apiKey: 'sk-fake', isDefault: true });
    user = await stack.createUser('user');
    browser = await launchBrowser({ locale: 'en-US' });
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await llm?.close();
  });

  it('refuses a send over the default limit with words in the composer, shows the bar, and an Unlimited override lifts it', async () => {
    // The admin sets 1,000 tokens a day for everyone.
    await logInByBrowser(page, stack);
    await page.goto(`${stack.url}/admin/usage`);
    await page.getByTestId('usage-limit-day').fill('1000');
    await page.getByTestId('usage-limits-save').click();
    expect(await page.getByTestId('usage-limits-notice').textContent()).toBe('Default limits saved.');

    // The user's first message is answered (it spends 1,234 tokens: a run is never cut off).
    await signInAs(user);
    const input = page.getByTestId('message-input');
    await input.fill('first question');
    await input.press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await expect.poll(() => lastAssistant(page).getAttribute('data-status'), { timeout: 30_000 }).toBe('succeeded');
    // The worker counts the run's tokens right after its end.
    const headers = await logInByApi(stack, user);
    await expect
      .poll(async () => ((await (await fetch(`${stack.url}/api/usage/limits`, { headers })).json()) as { limits: { spent: number }[] }).limits[0]?.spent, { timeout: 10_000 })
      .toBe(1234);

    // The message box says the day's tokens are spent before the next send is even tried.
    await expect.poll(() => page.getByTestId('usage-limit-notice').textContent(), { timeout: 10_000 }).toMatch(/^You have used 1,234 of your 1,000 tokens today\. /);

    // The next is refused: the message says why and when the day resets, and nothing is added.
    await input.fill('second question');
    await input.press('Enter');
    const refusal = page.getByTestId('send-error');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^You have used 1,234 of your 1,000 tokens today\. You can send again after .+\.$/);
    expect(await page.getByTestId('assistant-message').count()).toBe(1);
    const chatUrl = page.url();

    // Account → Usage: the day's bar, full.
    await page.goto(`${stack.url}/account/usage`);
    const bar = page.getByTestId('usage-limit-bar');
    await bar.waitFor();
    expect(await bar.getAttribute('data-period')).toBe('day');
    expect(await bar.getByTestId('usage-limit-text').textContent()).toBe('1,234 of 1,000 tokens used today');
    expect(await bar.getByRole('progressbar').getAttribute('aria-valuemax')).toBe('1000');

    // The admin lifts the user's daily limit on Admin → Users.
    await signInAs(stack.admin);
    await page.goto(`${stack.url}/admin/users`);
    const row = page.locator(`[data-testid="user-row"][data-user-email="${user.email}"]`);
    const limitsShown = () => Promise.all([row.getByTestId('user-row-limit-day').textContent(), row.getByTestId('user-row-limit-month').textContent()]);
    expect(await limitsShown()).toEqual(['Day: Default', 'Month: Default']);
    await row.getByTestId('user-usage-limits').click();
    await page.getByTestId('usage-limit-perDay-choice').selectOption('unlimited');
    await page.getByTestId('usage-limit-form-save').click();
    await expect.poll(limitsShown).toEqual(['Day: Unlimited', 'Month: Default']);

    // Both changes are in the audit log, under their own kind, with the limits set.
    await page.goto(`${stack.url}/admin/audit?category=usage-limit`);
    const audited = page.getByTestId('audit-row');
    await expect.poll(() => audited.getByTestId('audit-row-action').allInnerTexts()).toEqual(["Changed a user's usage limits", 'Changed the default usage limits']);
    expect(await audited.getByTestId('audit-row-details').allInnerTexts()).toEqual([
      expect.stringMatching(new RegExp(`^Day: Unlimited · Month: Default\\s+user ${user.id}$`)),
      expect.stringMatching(/^Day: 1,000 · Month: No limit\s+usage-limit default$/),
    ]);

    // The user sends again, and it is answered.
    await signInAs(user);
    await page.goto(chatUrl);
    await input.fill('third question');
    await input.press('Enter');
    await expect.poll(() => page.getByTestId('assistant-message').count(), { timeout: 30_000 }).toBe(2);
    await expect.poll(() => lastAssistant(page).getAttribute('data-status'), { timeout: 30_000 }).toBe('succeeded');
    expect(await page.getByTestId('send-error').count()).toBe(0);
    await page.goto(`${stack.url}/account/usage`);
    await page.getByTestId('usage-totals').waitFor();
    expect(await page.getByTestId('usage-limit-bar').count()).toBe(0);
  });
});
