import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, logInByApi, logInByBrowser } from './fixtures.ts';

const API_KEY = `sk-audit-${randomBytes(6).toString('hex')}`;

describe('admin audit log', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;
  let adminHeaders: Record<string, string>;
  const stranger = `nobody-${randomBytes(3).toString('hex')}@example.test`;

  beforeAll(async () => {
    stack = await startStack();
    adminHeaders = await logInByApi(stack);
    const model = await createByApi(stack, adminHeaders, '/api/models', { name: 'Audited model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm', apiKey: API_KEY });
    const changed = await fetch(`${stack.url}/api/models/${model.id}`, { method: 'PUT', headers: adminHeaders, body: JSON.stringify({ name: 'Audited model 2', apiKey: `${API_KEY}-new` }) });
    expect(changed.status).toBe(200);
    const failed = await fetch(`${stack.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: stranger, password: 'guess' }) });
    expect(failed.status).toBe(401);

    browser = await launchBrowser();
    page = browser.page;
    await logInByBrowser(page, stack);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const rows = () => page.getByTestId('audit-row');

  it('lists what admins did, the latest first, with what changed and never a key; filters by kind, person and days', async () => {
    await page.goto(`${stack.url}/admin`);
    await page.getByTestId('admin-entry-audit').click();
    await page.waitForURL(`${stack.url}/admin/audit`);

    // The model's change is above its creation, naming the fields changed, not the key.
    const modelRows = rows().filter({ hasText: 'Audited model' });
    await expect.poll(() => modelRows.getByTestId('audit-row-action').allInnerTexts()).toEqual(['Changed a model', 'Added a model']);
    expect(await modelRows.first().getByTestId('audit-row-details').innerText()).toContain('changed: name, apiKey');
    expect(await page.content()).not.toContain(API_KEY);

    // Sign-ins only: the admin's own and the failed one, with the email tried.
    await page.getByTestId('audit-category').selectOption('auth');
    await page.waitForURL(/category=auth/);
    await expect.poll(async () => new Set(await rows().evaluateAll((found) => found.map((row) => row.getAttribute('data-action')!.split('.')[0])))).toEqual(new Set(['auth']));
    const failed = rows().filter({ hasText: 'Failed sign-in' });
    expect(await failed.getAttribute('data-target-id')).toBe(stranger);
    expect(await failed.getByTestId('audit-row-actor').count()).toBe(0);

    // One person's actions: a click on their name; Everyone undoes it.
    await rows().filter({ hasText: 'Signed in' }).first().getByTestId('audit-row-actor').click();
    await page.waitForURL(/actor=usr_/);
    await page.getByTestId('audit-actor-filter').waitFor();
    expect(await rows().filter({ hasText: 'Failed sign-in' }).count()).toBe(0);
    expect(await rows().count()).toBeGreaterThan(0);
    await page.getByTestId('audit-actor-clear').click();
    await page.getByTestId('audit-actor-filter').waitFor({ state: 'detached' });

    // Days ahead hold nothing.
    const tomorrow = new Date(Date.now() + 86_400_000);
    const day = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`;
    await page.getByTestId('audit-from').fill(day);
    await page.getByTestId('audit-days-apply').click();
    await page.getByTestId('audit-empty').waitFor();
    await page.getByTestId('audit-days-clear').click();
    await rows().first().waitFor();
  });
});
