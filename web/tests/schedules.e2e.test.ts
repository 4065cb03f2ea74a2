import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createFakeModel, expectNoHorizontalOverflow, logInByApi, logInByBrowser } from './fixtures.ts';

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

const SLOW = { timeout: 30_000 };

describe('Account → Schedules', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;
  let llm: FakeLlm;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchBrowser();
    page = browser.page;
    llm = await startFakeLlm({ script: () => ({ text: 'Here is your scheduled digest.' }) });
    await createFakeModel(stack, await logInByApi(stack), llm);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await llm?.close();
    await stack?.stop();
  });

  for (const viewport of VIEWPORTS) {
    it(`creates a schedule from the form, lists it with its next run, runs it now into a chat, pauses and deletes it (${viewport.name})`, async () => {
      await browser.context.clearCookies();
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      const user = await stack.createUser();
      await logInByBrowser(page, stack, user);
      await page.goto(`${stack.url}/account`);
      await page.getByTestId('account-tab-schedules').click();
      await page.waitForURL(`${stack.url}/account/schedules`);
      await page.getByTestId('schedules-empty').waitFor(SLOW);
      await expectNoHorizontalOverflow(page, `schedules, empty (${viewport.name})`);

      // The form: a weekday preset at 07:30 in Tokyo, answers in one chat.
      await page.getByTestId('schedule-new').click();
      await page.getByTestId('schedule-name').fill('Morning digest');
      await page.getByTestId('schedule-prompt').fill('Give me the morning digest');
      await page.getByTestId('schedule-kind').selectOption('weekdays');
      await page.getByTestId('schedule-time').fill('07:30');
      expect(await page.getByTestId('schedule-cron-preview').textContent()).toBe('30 7 * * 1-5');
      await page.getByTestId('schedule-timezone').fill('Asia/Tokyo');
      await page.getByTestId('schedule-target-same').check();
      // A model of the user's list (the chat page's): the fake one.
      const chosenModel = await page.getByTestId('schedule-model').locator('option').nth(1).getAttribute('value');
      await page.getByTestId('schedule-model').selectOption(chosenModel!);
      await expectNoHorizontalOverflow(page, `schedule form (${viewport.name})`);
      // A bad custom cron is refused next to the field.
      await page.getByTestId('schedule-kind').selectOption('custom');
      await page.getByTestId('schedule-cron').fill('every morning');
      await page.getByTestId('schedule-form').getByRole('button', { name: 'Create' }).click();
      await page.getByTestId('schedule-cron-issue').waitFor(SLOW);
      await page.getByTestId('schedule-kind').selectOption('weekdays');
      await page.getByTestId('schedule-form').getByRole('button', { name: 'Create' }).click();

      const row = page.locator('[data-testid="schedule-row"][data-name="Morning digest"]');
      await row.waitFor(SLOW);
      expect(await row.getByTestId('schedule-when').textContent()).toBe('Every weekday at 07:30');
      expect(await row.textContent()).toContain('30 7 * * 1-5');
      expect(await row.textContent()).toContain('Asia/Tokyo');
      expect(await row.getByTestId('schedule-next').textContent()).toMatch(/^\s*Next: .*\d/);
      expect(await row.getByTestId('schedule-enabled').isChecked()).toBe(true);
      await expectNoHorizontalOverflow(page, `schedules, listed (${viewport.name})`);
      // The model chosen reads back in the editor.
      await row.getByTestId('schedule-edit').click();
      expect(await page.getByTestId('schedule-model').inputValue()).toBe(chosenModel);
      await page.getByTestId('schedule-form').getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('schedule-form').waitFor({ state: 'detached', ...SLOW });

      // Run now: the answer appears in the linked chat.
      await row.getByTestId('schedule-run-now').click();
      await row.getByTestId('schedule-last-run').waitFor(SLOW);
      await row.getByTestId('schedule-last-run').click();
      await page.waitForURL(/\/chat\/cs_/, SLOW);
      await expect.poll(async () => (await page.getByTestId('assistant-message').first().textContent()) ?? '', SLOW).toContain('Here is your scheduled digest.');
      expect(await page.getByText('Give me the morning digest').count()).toBeGreaterThan(0);
      await expectNoHorizontalOverflow(page, `schedule's chat (${viewport.name})`);

      // Pause it: no next run; then delete it (after confirming).
      await page.goto(`${stack.url}/account/schedules`);
      await row.waitFor(SLOW);
      // The last run's outcome, in words.
      expect(await row.getByTestId('schedule-last-status').textContent()).toBe('· succeeded');
      await row.getByTestId('schedule-enabled').click();
      await expect.poll(async () => (await row.getByTestId('schedule-next').textContent())?.trim(), SLOW).toBe('Paused');
      expect(await row.getByTestId('schedule-enabled').isChecked()).toBe(false);
      await row.getByTestId('schedule-delete').click();
      await row.getByTestId('schedule-delete-confirm').click();
      await page.getByTestId('schedules-empty').waitFor(SLOW);
      expect(await page.getByTestId('schedules-notice').textContent()).toContain('Deleted Morning digest.');
    }, 120_000);
  }
});
