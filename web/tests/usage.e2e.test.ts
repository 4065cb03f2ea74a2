/**
 * Token usage: chat runs on the fake model (which reports fixed token counts) show up on Admin →
 * Usage (everyone's, by day, model and user) and on Account → Usage (your own); a non-admin has no
 * Admin → Usage.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, expectNoHorizontalOverflow, logInByApi, logInByBrowser, type Credentials } from './fixtures.ts';

describe('token usage', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let user: Credentials;

  /** A chat turn by `credentials` on `modelId`, waited for until it succeeded. */
  async function chat(credentials: Credentials, modelId: string) {
    const headers = await logInByApi(stack, credentials);
    const session = await createByApi(stack, headers, '/api/sessions', {});
    const started = await fetch(`${stack.url}/api/sessions/${session.id}/runs`, { method: 'POST', headers, body: JSON.stringify({ content: 'count me', modelId }) });
    expect(started.status, await started.clone().text()).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    // Polled by hand: expect.poll belongs to tests, and this runs in beforeAll.
    for (const deadline = Date.now() + 30_000; ; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const { status } = (await (await fetch(`${stack.url}/api/runs/${runId}`, { headers })).json()) as { status: string };
      if (status === 'succeeded') return;
      if (status === 'failed' || status === 'cancelled' || Date.now() > deadline) throw new Error(`run ${runId} ended ${status}:\n${stack.logs().slice(-3000)}`);
    }
  }

  const text = (testId: string) => page.getByTestId(testId).first().textContent();
  const rowTotals = (table: string) => page.getByTestId(`${table}-row`).evaluateAll((rows) => rows.map((row) => [row.querySelector('td')?.textContent?.trim(), row.querySelector('[data-testid$="-runs"]')?.textContent, row.querySelector('[data-testid$="-total"]')?.textContent]));

  beforeAll(async () => {
    // Each model reports its own fixed counts: 1,000 in and 234 out, or 500 in and 50 out.
    llm = await startFakeLlm({ script: (request) => ({ text: 'Counted.', usage: request.model === 'small-model' ? { promptTokens: 500, completionTokens: 50 } : { promptTokens: 1000, completionTokens: 234 } }) });
    stack = await startStack();
    const admin = await logInByApi(stack);
    const big = await createByApi(stack, admin, '/api/models', { name: 'Big model', baseUrl: llm.url, modelId: 'big-model', apiKey: 'sk-fake', isDefault: true });
    const small = await createByApi(stack, admin, '/api/models', { name: 'Small model', baseUrl: llm.url, modelId: 'small-model', apiKey: 'sk-fake' });
    user = await stack.createUser('user');
    await chat(stack.admin, big.id);
    await chat(user, big.id);
    await chat(user, small.id);
    browser = await launchBrowser({ locale: 'en-US' });
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await llm?.close();
  });

  it("Admin → Usage shows everyone's tokens: totals, today's bar, by model and by user; other days have none", async () => {
    await logInByBrowser(page, stack);
    await page.goto(`${stack.url}/admin`);
    await page.getByTestId('admin-entry-usage').click();
    await page.waitForURL(`${stack.url}/admin/usage`);
    await page.getByTestId('usage-totals').waitFor();
    expect(await text('usage-total-totalTokens')).toBe('3,018');
    expect(await text('usage-total-inputTokens')).toBe('2,500');
    expect(await text('usage-total-outputTokens')).toBe('518');
    expect(await text('usage-total-runs')).toBe('3');

    // The last 30 days, today last with every token.
    const bars = page.getByTestId('usage-bar');
    expect(await bars.count()).toBe(30);
    expect(await bars.last().getAttribute('data-tokens')).toBe('3018');
    expect(await bars.last().locator('title').textContent()).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}: 3,018 tokens in 3 chat runs$/);
    expect(await bars.first().getAttribute('data-tokens')).toBe('0');

    expect(await rowTotals('usage-models')).toEqual([
      ['Big model', '2', '2,468'],
      ['Small model', '1', '550'],
    ]);
    const users = await rowTotals('usage-users');
    expect(users.map(([, runs, total]) => [runs, total])).toEqual([
      ['2', '1,784'],
      ['1', '1,234'],
    ]);
    expect(users[0]![0]).toContain(user.email);
    expect(users[1]![0]).toContain(stack.admin.email);
    await expectNoHorizontalOverflow(page, 'admin usage');

    // Days before any run: nothing to count.
    await page.getByTestId('usage-from').fill('2020-01-01');
    await page.getByTestId('usage-to').fill('2020-01-31');
    await page.getByTestId('usage-days-apply').click();
    await page.waitForURL(`${stack.url}/admin/usage?from=2020-01-01&to=2020-01-31`);
    await page.getByTestId('usage-empty').waitFor();
    expect(await text('usage-total-totalTokens')).toBe('0');
    // A range backwards cannot be applied.
    await page.getByTestId('usage-from').fill('2020-02-01');
    expect(await page.getByTestId('usage-days-problem').textContent()).toBe('The first day comes after the last.');
    expect(await page.getByTestId('usage-days-apply').isDisabled()).toBe(true);
    await page.getByTestId('usage-days-reset').click();
    await page.waitForURL(`${stack.url}/admin/usage`);
    await expect.poll(() => text('usage-total-totalTokens')).toBe('3,018');
  });

  it("Account → Usage shows a user's own tokens only, and a user has no Admin → Usage", async () => {
    await page.context().clearCookies();
    await logInByBrowser(page, stack, user);
    expect(await page.getByTestId('nav-admin').count()).toBe(0);
    await page.goto(`${stack.url}/account`);
    await page.getByTestId('account-tab-usage').click();
    await page.waitForURL(`${stack.url}/account/usage`);
    await page.getByTestId('usage-totals').waitFor();
    expect(await text('usage-total-totalTokens')).toBe('1,784');
    expect(await text('usage-total-runs')).toBe('2');
    expect(await page.getByTestId('usage-bar').last().getAttribute('data-tokens')).toBe('1784');
    expect(await rowTotals('usage-models')).toEqual([
      ['Big model', '1', '1,234'],
      ['Small model', '1', '550'],
    ]);
    expect(await page.getByTestId('usage-users').count()).toBe(0);
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalOverflow(page, 'account usage on a phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.goto(`${stack.url}/admin/usage`);
    await page.getByTestId('error-panel').waitFor();
    expect(await page.getByTestId('error-message').textContent()).toBe('This area is for administrators only.');
    const headers = await logInByApi(stack, user);
    expect((await fetch(`${stack.url}/api/admin/usage`, { headers })).status).toBe(403);
  });
});
