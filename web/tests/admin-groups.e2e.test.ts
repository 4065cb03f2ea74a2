import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, logInByApi, logInByBrowser, waitForRunStatus } from './fixtures.ts';

const SLOW = { timeout: 15_000 };

describe('groups decide who can use a model', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let user: Awaited<ReturnType<Stack['createUser']>>;

  beforeAll(async () => {
    stack = await startStack();
    llm = await startFakeLlm({ script: (request) => ({ text: `Answered by ${request.model}.` }) });
    const admin = await logInByApi(stack);
    await createByApi(stack, admin, '/api/models', { name: 'Everyday model', baseUrl: llm.url, modelId: 'everyday', apiKey: 'sk-fake', isDefault: true });
    await createByApi(stack, admin, '/api/models', { name: 'Costly model', baseUrl: llm.url, modelId: 'costly', apiKey: 'sk-fake' });
    user = await stack.createUser();
    browser = await launchBrowser();
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  afterAll(async () => {
    await browser?.close();
    await llm?.close();
    await stack?.stop();
  });

  const signInAs = async (credentials?: { email: string; password: string }) => {
    await browser.context.clearCookies();
    await logInByBrowser(page, stack, credentials);
  };
  const modelsOffered = () => page.getByTestId('model-select').locator('option').allInnerTexts();

  it('an admin limits a model to a new group: a user outside it does not see it; added to the group, they see it and chat with it', async () => {
    await signInAs();
    await page.goto(`${stack.url}/admin`);
    await page.getByTestId('admin-entry-groups').click();
    await page.waitForURL(`${stack.url}/admin/groups`);
    await page.getByTestId('groups-empty').waitFor();
    await page.getByTestId('group-new').click();
    await page.getByTestId('group-name').fill('Research');
    await page.getByTestId('group-description').fill('The research team');
    await page.getByTestId('group-editor-save').click();
    const row = page.getByTestId('group-row').filter({ hasText: 'Research' });
    await row.waitFor();
    expect(await row.getByTestId('group-row-members').innerText()).toBe('0');

    // Who can use it: the costly model, Research only.
    await page.goto(`${stack.url}/admin/models`);
    const costly = page.getByTestId('model-row').filter({ hasText: 'Costly model' });
    await costly.getByTestId('model-edit').click();
    expect(await page.getByTestId('model-groups-everyone').innerText()).toBe('No group chosen: everyone can use it.');
    await page.getByTestId('model-groups-option').and(page.locator('[data-group-name="Research"]')).check();
    await page.getByTestId('model-editor-save').click();
    await expect.poll(() => costly.getByTestId('model-groups-badge').innerText(), SLOW).toBe('Groups: Research');

    // The user, in no group, is not offered it.
    await signInAs(user);
    await page.getByTestId('model-select').waitFor();
    await expect.poll(modelsOffered, SLOW).toContain('Everyday model');
    expect(await modelsOffered()).not.toContain('Costly model');

    // The admin adds them, found by their email.
    await signInAs();
    await page.goto(`${stack.url}/admin/groups`);
    await page.getByTestId('group-row').filter({ hasText: 'Research' }).getByTestId('group-members-open').click();
    await page.getByTestId('group-members-empty').waitFor();
    await page.getByTestId('group-member-search-input').fill(user.email);
    await page.getByTestId('group-member-search-submit').click();
    await page.locator(`[data-testid="group-member-result"][data-user-email="${user.email}"]`).getByTestId('group-member-add').click();
    await page.locator(`[data-testid="group-member"][data-user-email="${user.email}"]`).waitFor();
    await expect.poll(() => page.getByTestId('group-row').filter({ hasText: 'Research' }).getByTestId('group-row-members').innerText(), SLOW).toBe('1');
    await page.goto(`${stack.url}/admin/users`);
    expect(await page.locator(`[data-testid="user-row"][data-user-email="${user.email}"]`).getByTestId('user-row-groups').innerText()).toBe('Research');

    // After a reload the user sees the model, and it answers them.
    await signInAs(user);
    await page.reload();
    await expect.poll(modelsOffered, SLOW).toContain('Costly model');
    await page.getByTestId('model-select').selectOption({ label: 'Costly model' });
    await page.getByTestId('message-input').fill('Summarise the study');
    await page.getByTestId('message-input').press('Enter');
    await page.getByTestId('assistant-message').first().waitFor(SLOW);
    await waitForRunStatus(page, 'succeeded');
    expect(await page.getByTestId('assistant-message').last().innerText()).toContain('Answered by costly.');
  }, 120_000);
});
