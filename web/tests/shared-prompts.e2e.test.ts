import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, expectNoHorizontalOverflow, logInByApi, logInByBrowser } from './fixtures.ts';

const SLOW = { timeout: 15_000 };

describe('prompts an admin shares with a group', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let member: Awaited<ReturnType<Stack['createUser']>>;
  let outsider: Awaited<ReturnType<Stack['createUser']>>;

  beforeAll(async () => {
    stack = await startStack();
    llm = await startFakeLlm({ script: () => ({ text: 'ok' }) });
    const admin = await logInByApi(stack);
    await createFakeModel(stack, admin, llm);
    member = await stack.createUser();
    outsider = await stack.createUser();
    const group = await createByApi(stack, admin, '/api/groups', { name: 'Support' });
    const added = await fetch(`${stack.url}/api/groups/${group.id}/members/${member.id}`, { method: 'PUT', headers: admin });
    expect(added.status).toBe(204);
    browser = await launchBrowser();
    page = browser.page;
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

  it('an admin shares a prompt with Support: a member sees it read-only and inserts it with /, a non-member never sees it', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await signInAs();
    await page.goto(`${stack.url}/account/prompts`);
    await page.getByTestId('prompt-new').click();
    await page.getByTestId('prompt-command').fill('refund');
    await page.getByTestId('prompt-title').fill('Refund reply');
    await page.getByTestId('prompt-content').fill('Dear {{customer}}, your refund is on its way.');
    await page.getByTestId('prompt-shared-toggle').check();
    await page.getByTestId('prompt-groups-option').and(page.locator('[data-group-name="Support"]')).check();
    await page.getByTestId('prompt-form-save').click();
    const adminRow = page.getByTestId('prompt-row').filter({ hasText: '/refund' });
    await expect.poll(() => adminRow.getByTestId('prompt-shared').innerText(), SLOW).toBe('Shared with groups (1)');

    // A member, on a phone: listed as shared by the admin, with no Edit or Delete.
    await page.setViewportSize({ width: 390, height: 844 });
    await signInAs(member);
    await page.goto(`${stack.url}/account/prompts`);
    const memberRow = page.getByTestId('prompt-row').filter({ hasText: '/refund' });
    expect(await memberRow.getByTestId('prompt-shared-by').innerText()).toBe('Shared by Administrator');
    expect(await memberRow.getByTestId('prompt-edit').count()).toBe(0);
    expect(await memberRow.getByTestId('prompt-delete').count()).toBe(0);
    await expectNoHorizontalOverflow(page);

    await page.goto(`${stack.url}/chat`);
    const box = page.getByTestId('message-input');
    await box.pressSequentially('/ref');
    const option = page.getByTestId('prompt-option');
    await expect.poll(() => option.allInnerTexts(), SLOW).toEqual(['/refund Refund reply Shared by Administrator']);
    await expectNoHorizontalOverflow(page);
    await box.press('Enter');
    expect(await box.inputValue()).toBe('Dear {{customer}}, your refund is on its way.');
    expect(await box.evaluate((element: HTMLTextAreaElement) => element.value.slice(element.selectionStart, element.selectionEnd))).toBe('{{customer}}');

    // Someone outside Support: neither in the / menu nor on their Prompts tab.
    await signInAs(outsider);
    await page.getByTestId('message-input').pressSequentially('/ref');
    await page.getByTestId('prompt-menu-empty').waitFor();
    expect(await page.getByTestId('prompt-option').count()).toBe(0);
    await page.goto(`${stack.url}/account/prompts`);
    await page.getByTestId('prompts-empty').waitFor();
  });
});
