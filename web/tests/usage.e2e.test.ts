/**
 * Token usage: chat runs on the fake model (which reports fixed token counts) show up on Admin →
 * Usage (everyone's, by day, model and user) and on Account → Usage (your own), with their cost where
 * the model has prices; a non-admin has no Admin → Usage.
 */
import { readFileSync } from 'node:fs';
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
  let usersPricedChat: string;

  /** A chat turn by `credentials` on `modelId`, waited for until it succeeded; answers the chat's id. */
  async function chat(credentials: Credentials, modelId: string): Promise<string> {
    const headers = await logInByApi(stack, credentials);
    const session = await createByApi(stack, headers, '/api/sessions', {});
    const started = await fetch(`${stack.url}/api/sessions/${session.id}/runs`, { method: 'POST', headers, body: JSON.stringify({ content: 'count me', modelId }) });
    expect(started.status, await started.clone().text()).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    // Polled by hand: expect.poll belongs to tests, and this runs in beforeAll.
    for (const deadline = Date.now() + 30_000; ; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const { status } = (await (await fetch(`${stack.url}/api/runs/${runId}`, { headers })).json()) as { status: string };
      if (status === 'succeeded') return session.id;
      if (status === 'failed' || status === 'cancelled' || Date.now() > deadline) throw new Error(`run ${runId} ended ${status}:\n${stack.logs().slice(-3000)}`);
    }
  }

  const text = (testId: string) => page.getByTestId(testId).first().textContent();
  const rowTotals = (table: string) => page.getByTestId(`${table}-row`).evaluateAll((rows) => rows.map((row) => [row.querySelector('td')?.textContent?.trim(), row.querySelector('[data-testid$="-runs"]')?.textContent, row.querySelector('[data-testid$="-total"]')?.textContent]));
  const rowCosts = (table: string) => page.getByTestId(`${table}-cost`).allTextContents();

  beforeAll(async () => {
    // Each model reports its own fixed counts: 1,000 in and 234 out, or 500 in and 50 out.
    llm = await startFakeLlm({ script: (request) => ({ text: 'Counted.', usage: request.model === 'small-model' ? { promptTokens: 500, completionTokens: 50 } : { promptTokens: 1000, completionTokens: 234 } }) });
    stack = await startStack();
    const admin = await logInByApi(stack);
    // The big model is priced: each of its runs costs 1,000 × $2.50 + 234 × $10 per million = $0.00484.
    const big = await createByApi(stack, admin, '/api/models', { name: 'Big model', baseUrl: llm.url, modelId: 'big-model', apiKey: 'sk-fake', isDefault: true, inputPrice: 2.5, outputPrice: 10 });
    const small = await createByApi(stack, admin, '/api/models', { name: 'Small model', baseUrl: llm.url, modelId: 'small-model', apiKey: 'sk-fake' });
    user = await stack.createUser('user');
    await chat(stack.admin, big.id);
    usersPricedChat = await chat(user, big.id);
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
    expect(await text('usage-total-cost')).toBe('$0.00968');

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
    // The small model has no price: a dash, not $0.
    expect(await rowCosts('usage-models')).toEqual(['$0.00968', '—']);
    const users = await rowTotals('usage-users');
    expect(users.map(([, runs, total]) => [runs, total])).toEqual([
      ['2', '1,784'],
      ['1', '1,234'],
    ]);
    expect(users[0]![0]).toContain(user.email);
    expect(users[1]![0]).toContain(stack.admin.email);
    expect(await rowCosts('usage-users')).toEqual(['$0.00484', '$0.00484']);

    // The report as a CSV file: a row per day, model and user, and the totals.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('usage-download').click()]);
    expect(download.suggestedFilename()).toMatch(/^agentq-usage-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(csv[0]).toBe('group,id,name,email,runs,input_tokens,output_tokens,reasoning_tokens,total_tokens,cost_usd');
    expect(csv.filter((line) => line.startsWith('model,')).map((line) => line.split(',').slice(2).join(','))).toEqual(['Big model,,2,2000,468,0,2468,0.00968', 'Small model,,1,500,50,0,550,']);
    expect(csv.filter((line) => line.startsWith('user,'))).toHaveLength(2);
    expect(csv.at(-2)).toBe('total,,,,3,2500,518,0,3018,0.00968');
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

  it('an admin prices a model in its editor; its row shows the prices, and runs that ended before keep their cost', async () => {
    await page.context().clearCookies();
    await logInByBrowser(page, stack);
    await page.goto(`${stack.url}/admin/models`);
    const row = page.getByTestId('model-row').filter({ hasText: 'Small model' });
    expect(await row.getByTestId('model-prices-badge').count()).toBe(0);
    await row.getByTestId('model-edit').click();
    const editor = page.getByTestId('model-editor');
    expect(await editor.getByTestId('model-input-price').inputValue()).toBe('');
    // A negative price is refused where it was typed, and nothing is saved.
    await editor.getByTestId('model-input-price').fill('-1');
    await editor.getByTestId('model-editor-save').click();
    await expect.poll(() => editor.getByTestId('model-input-price').getAttribute('aria-invalid')).toBe('true');
    await editor.getByTestId('model-input-price').fill('0.15');
    await editor.getByTestId('model-output-price').fill('0.6');
    await editor.getByTestId('model-editor-save').click();
    await editor.waitFor({ state: 'detached' });
    await expect.poll(() => row.getByTestId('model-prices-badge').textContent()).toBe('$0.15 / $0.60 per 1M');
    await row.getByTestId('model-edit').click();
    expect(await editor.getByTestId('model-input-price').inputValue()).toBe('0.15');
    expect(await editor.getByTestId('model-output-price').inputValue()).toBe('0.6');
    // Cleared, it has no price again.
    await editor.getByTestId('model-output-price').fill('');
    await editor.getByTestId('model-editor-save').click();
    await editor.waitFor({ state: 'detached' });
    await expect.poll(() => row.getByTestId('model-prices-badge').textContent()).toBe('$0.15 / $0.00 per 1M');

    // The small model's run ended unpriced: the new price does not reach back.
    await page.goto(`${stack.url}/admin/usage`);
    await page.getByTestId('usage-totals').waitFor();
    expect(await text('usage-total-cost')).toBe('$0.00968');
    expect(await rowCosts('usage-models')).toEqual(['$0.00968', '—']);
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
    expect(await text('usage-total-cost')).toBe('$0.00484');
    expect(await page.getByTestId('usage-bar').last().getAttribute('data-tokens')).toBe('1784');
    expect(await rowTotals('usage-models')).toEqual([
      ['Big model', '1', '1,234'],
      ['Small model', '1', '550'],
    ]);
    expect(await page.getByTestId('usage-users').count()).toBe(0);
    // The answer's details say what it cost.
    await page.goto(`${stack.url}/chat/${usersPricedChat}`);
    const actions = page.getByTestId('assistant-actions').last();
    await actions.getByTestId('answer-details-toggle').click();
    expect(await actions.getByTestId('answer-details').textContent()).toMatch(/^Big model · 1,000 in · 234 out tokens · \$0\.00484 · /);
    await page.goto(`${stack.url}/account/usage`);
    await page.getByTestId('usage-totals').waitFor();
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
