import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { byLastUserMessage } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, expectNoHorizontalOverflow, lastAssistant, logInByApi, logInByBrowser, waitForRunStatus } from './fixtures.ts';

const SLOW = { timeout: 30_000 };

const HANDBOOK = `# Parental leave

Parents get 20 weeks of paid parental leave, taken within the child's first two years.
`;

describe('a knowledge base an admin shares with a group', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let member: Awaited<ReturnType<Stack['createUser']>>;
  let outsider: Awaited<ReturnType<Stack['createUser']>>;
  let baseId: string;

  beforeAll(async () => {
    llm = await startFakeLlm({
      script: byLastUserMessage([
        { match: 'parental', reply: [{ toolCalls: [{ name: 'company_knowledge', input: { query: 'parental leave weeks' } }] }, { text: 'Parents get 20 weeks of paid leave [1].' }] },
        { match: /./, reply: { text: 'ok' } },
      ]),
    });
    stack = await startStack();
    const admin = await logInByApi(stack);
    await createFakeModel(stack, admin, llm);
    member = await stack.createUser();
    outsider = await stack.createUser();
    const group = await createByApi(stack, admin, '/api/groups', { name: 'People team' });
    expect((await fetch(`${stack.url}/api/groups/${group.id}/members/${member.id}`, { method: 'PUT', headers: admin })).status).toBe(204);

    // The admin's base with one file, processed on the worker's queue.
    baseId = (await createByApi(stack, admin, '/api/knowledge', { name: 'HR handbook' })).id;
    const form = new FormData();
    form.append('file', new File([HANDBOOK], 'parental-leave.md', { type: 'text/markdown' }));
    const upload = await fetch(`${stack.url}/api/knowledge/${baseId}/files`, { method: 'POST', headers: { cookie: admin.cookie }, body: form });
    expect(upload.status, await upload.clone().text()).toBe(201);
    for (let tries = 0; ; tries += 1) {
      const detail = (await (await fetch(`${stack.url}/api/knowledge/${baseId}`, { headers: admin })).json()) as { files: { status: string }[] };
      if (detail.files[0]?.status === 'ready') break;
      if (tries > 300) throw new Error(`the knowledge file is still ${detail.files[0]?.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // One tool for every chat, attached to no base: it searches what is shared with whoever asks.
    await createByApi(stack, admin, '/api/agent-tools', { name: 'Company knowledge', slug: 'company_knowledge', type: 'knowledge', config: { knowledgeBaseIds: [], userBases: 'shared', topK: 1 } });

    browser = await launchBrowser();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await llm?.close();
  });

  const signInAs = async (credentials?: { email: string; password: string }) => {
    await browser.context.clearCookies();
    await logInByBrowser(page, stack, credentials);
  };

  it('the admin shares it with People team; a member sees it marked shared, read-only, and a chat answer cites its passage; an outsider never sees it', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await signInAs();
    await page.goto(`${stack.url}/knowledge/${baseId}`);
    await page.getByTestId('knowledge-shared-toggle').check();
    await page.getByTestId('knowledge-groups-option').and(page.locator('[data-group-name="People team"]')).check();
    await page.getByTestId('knowledge-save-sharing').click();
    await page.getByTestId('knowledge-sharing-saved').waitFor(SLOW);
    await page.goto(`${stack.url}/knowledge`);
    const adminRow = page.getByTestId('knowledge-row').filter({ hasText: 'HR handbook' });
    expect(await adminRow.getByTestId('knowledge-shared').innerText()).toBe('Shared with groups (1)');

    // The member, on a phone: listed as shared by the admin; opened, its files and test search, no way to change it.
    await page.setViewportSize({ width: 390, height: 844 });
    await signInAs(member);
    await page.goto(`${stack.url}/knowledge`);
    const memberRow = page.getByTestId('knowledge-row').filter({ hasText: 'HR handbook' });
    expect(await memberRow.getByTestId('knowledge-shared-by').innerText()).toBe('Shared by Administrator');
    await expectNoHorizontalOverflow(page);
    await memberRow.getByTestId('knowledge-link').click();
    await page.getByTestId('knowledge-read-only').waitFor(SLOW);
    expect(await page.getByTestId('knowledge-file-row').getAttribute('data-file-name')).toBe('parental-leave.md');
    for (const control of ['knowledge-edit', 'knowledge-delete', 'knowledge-drop', 'knowledge-pages-form', 'knowledge-file-delete', 'knowledge-sharing']) {
      expect(await page.getByTestId(control).count(), control).toBe(0);
    }
    await page.getByTestId('knowledge-search-input').fill('parental leave');
    await page.getByTestId('knowledge-search').click();
    await expect.poll(() => page.getByTestId('knowledge-passage').first().innerText(), SLOW).toContain('20 weeks of paid parental leave');
    await expectNoHorizontalOverflow(page);

    // Their chat searches it: the answer's [1] is the shared base's passage.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('send-button').waitFor(SLOW);
    await page.getByTestId('message-input').fill('How long is parental leave?');
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');
    const text = lastAssistant(page).getByTestId('markdown-text');
    expect(await text.innerText()).toContain('Parents get 20 weeks of paid leave');
    await text.locator('button.citation[data-citation="1"]').click();
    const card = page.getByTestId('source-popover');
    await card.waitFor(SLOW);
    expect(await card.getByTestId('source-popover-title').innerText()).toBe('parental-leave.md');
    expect(await card.getByTestId('source-popover-snippet').innerText()).toContain('Parents get 20 weeks of paid parental leave');

    // Someone outside the group: not in their list, and its page is not found.
    await signInAs(outsider);
    await page.goto(`${stack.url}/knowledge`);
    await page.getByTestId('knowledge-empty').waitFor(SLOW);
    await page.goto(`${stack.url}/knowledge/${baseId}`);
    await page.getByTestId('error-panel').waitFor(SLOW);
    expect(await page.getByTestId('error-panel').textContent()).toContain('404');
  });
});
