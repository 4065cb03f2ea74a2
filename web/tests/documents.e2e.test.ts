import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { byLastUserMessage, toolResultsSinceLastUserMessage, type Turn } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, expectNoHorizontalOverflow, logInByApi, logInByBrowser } from './fixtures.ts';

const TITLE = 'Favourite colour';
const ORIGINAL_CONTENT = '# Colour notes\n\nFavourite colour: **teal**.\n\n- likes the sea\n- dislikes orange';
const EDITED_CONTENT = '# Colour notes\n\nFavourite colour: **crimson** now.\n\n1. changed their mind\n2. still likes the sea';

describe('documents pages', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let sessionId = '';
  let documentId = '';

  beforeAll(async () => {
    // The model saves a memory with the document tool, then confirms once it has the tool's result.
    llm = await startFakeLlm({
      script: byLastUserMessage([
        {
          match: /^remember /i,
          reply: (request): Turn =>
            toolResultsSinceLastUserMessage(request).length
              ? { text: 'Saved it as a memory.' }
              : { toolCalls: [{ name: 'document', input: { action: 'create', type: 'memory', title: TITLE, content: ORIGINAL_CONTENT, tags: 'profile, colours' } }] },
        },
      ]),
    });

    stack = await startStack();
    const headers = await logInByApi(stack);
    await createFakeModel(stack, headers, llm);
    // The default agent offers every enabled tool, so this one reaches the model as `document`.
    await createByApi(stack, headers, '/api/agent-tools', { name: 'Documents', slug: 'document', type: 'document' });

    browser = await launchBrowser();
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await logInByBrowser(page, stack);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await llm?.close();
  });

  function rows(): Locator {
    return page.getByTestId('document-row');
  }

  function content(): Locator {
    return page.getByTestId('document-content');
  }

  async function expectVersion(version: number) {
    await page.locator(`[data-testid="document-version"][data-version="${version}"]`).waitFor();
  }

  async function openList(query = '') {
    await page.goto(`${stack.url}/documents${query}`);
    await page.getByTestId('documents-count').waitFor();
  }

  it('the agent saves a memory with the document tool when asked in the chat page', async () => {
    await page.getByTestId('message-input').fill('remember that my favourite colour is teal');
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    sessionId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);

    const answer = page.getByTestId('assistant-message').last();
    await expect.poll(() => answer.getAttribute('data-status'), { timeout: 30_000 }).toBe('succeeded');
    const card = answer.getByTestId('tool-card');
    expect(await card.getByTestId('tool-name').textContent()).toBe('document');
    expect(await card.getByTestId('tool-status').textContent()).toContain('Succeeded');
    expect(await answer.getByTestId('markdown-text').textContent()).toContain('Saved it as a memory.');
  });

  it("lists the agent's document under Memory and not under Documents", async () => {
    await page.getByTestId('nav-documents').click();
    await page.waitForURL(`${stack.url}/documents`);
    expect(await page.getByTestId('documents-tabs-memory').getAttribute('aria-selected')).toBe('true');
    await rows().first().waitFor();
    expect(await rows().count()).toBe(1);
    const row = rows().first();
    expect(await row.getAttribute('data-type')).toBe('memory');
    expect(await row.getByTestId('document-link').textContent()).toBe(TITLE);
    // The summary is plain text: the markdown of the document is rendered, not shown raw.
    const summary = await row.getByTestId('document-summary').textContent();
    expect(summary).toContain('Favourite colour: teal');
    expect(summary).not.toMatch(/\*\*|```|\|/);
    expect(await row.getByTestId('document-tag').allTextContents()).toEqual(['profile', 'colours']);
    expect(await row.getByTestId('document-version').textContent()).toBe('v1');
    expect(await page.getByTestId('documents-tabs-memory').textContent()).toBe('Memory (1)');
    expect(await page.getByTestId('documents-tabs-document').textContent()).toBe('Documents (0)');
    documentId = (await row.getAttribute('data-document-id'))!;

    await page.getByTestId('documents-tabs-document').click();
    await page.waitForURL(`${stack.url}/documents?type=document`);
    await page.getByTestId('documents-empty').waitFor();
    expect(await rows().count()).toBe(0);
    expect(await page.getByTestId('documents-count').textContent()).toContain('0 documents');
  });

  it('opens it rendered as Markdown, linked to the chat that created it, with the agent as the author of version 1', async () => {
    await page.getByTestId('documents-tabs-memory').click();
    await page.getByTestId('document-link').filter({ hasText: TITLE }).click();
    await page.waitForURL(`${stack.url}/documents/${documentId}`);

    expect(await page.getByTestId('document-title').textContent()).toBe(TITLE);
    expect(await page.getByTestId('document-type').textContent()).toBe('Memory');
    await expectVersion(1);
    expect(await content().locator('h1').textContent()).toBe('Colour notes');
    expect(await content().locator('strong').textContent()).toBe('teal');
    expect(await content().locator('li').allTextContents()).toEqual(['likes the sea', 'dislikes orange']);

    const sessionLink = page.getByTestId('document-session-link');
    expect(await sessionLink.getAttribute('href')).toBe(`/chat/${sessionId}`);

    const revisions = page.getByTestId('revision');
    expect(await revisions.count()).toBe(1);
    expect(await revisions.first().getByTestId('revision-author').getAttribute('data-kind')).toBe('agent');
    expect(await revisions.first().getByTestId('revision-author').textContent()).toMatch(/Agent, run\s+run_/);
    expect(await revisions.first().getByTestId('revision-session-link').getAttribute('href')).toBe(`/chat/${sessionId}`);

    // The link leads back to the conversation.
    await sessionLink.click();
    await page.waitForURL(`${stack.url}/chat/${sessionId}`);
    await page.getByTestId('user-message').filter({ hasText: 'remember that my favourite colour is teal' }).waitFor();
  });

  it('edits it in the page: the new content renders as version 2, written by you', async () => {
    await page.goto(`${stack.url}/documents/${documentId}`);
    await page.getByTestId('document-edit').click();
    expect(await page.getByTestId('document-edit-content').inputValue()).toBe(ORIGINAL_CONTENT);
    await page.getByTestId('document-edit-content').fill(EDITED_CONTENT);
    await page.getByTestId('document-edit-save').click();

    await expectVersion(2);
    expect(await page.getByTestId('document-notice').textContent()).toBe('Saved as version 2.');
    expect(await content().locator('strong').textContent()).toBe('crimson');
    expect(await content().locator('ol li').allTextContents()).toEqual(['changed their mind', 'still likes the sea']);
    // The summary was re-cut from the new content, since it was not edited.
    expect(await page.getByTestId('document-summary').textContent()).toContain('crimson');

    const revisions = page.getByTestId('revision');
    expect(await revisions.count()).toBe(2);
    expect(await revisions.first().getAttribute('data-version')).toBe('2');
    expect(await revisions.first().getByTestId('revision-author').getAttribute('data-kind')).toBe('you');
    expect(await revisions.first().getByTestId('revision-current').count()).toBe(1);
  });

  it('restores the first revision from its preview: the original content is back as version 3', async () => {
    await page.locator('[data-testid="revision"][data-version="1"]').getByTestId('revision-preview').click();
    const dialog = page.getByTestId('revision-preview-dialog');
    await dialog.waitFor();
    expect(await dialog.getByTestId('revision-preview-content').locator('strong').textContent()).toBe('teal');
    await dialog.getByTestId('revision-restore').click();
    await dialog.waitFor({ state: 'detached' });

    await expectVersion(3);
    expect(await page.getByTestId('document-notice').textContent()).toBe('Restored version 1 as version 3.');
    expect(await content().locator('strong').textContent()).toBe('teal');
    expect(await content().locator('li').allTextContents()).toEqual(['likes the sea', 'dislikes orange']);
    expect(await page.getByTestId('revision').count()).toBe(3);

    // The current version offers no restore of itself.
    await page.locator('[data-testid="revision"][data-version="3"]').getByTestId('revision-preview').click();
    expect(await page.getByTestId('revision-restore').isDisabled()).toBe(true);
    await page.getByTestId('revision-preview-close').click();
  });

  it('search finds it by its content, with the match highlighted, and only in the current text', async () => {
    await openList();
    await page.getByTestId('documents-search-input').fill('teal');
    await page.getByTestId('documents-search-submit').click();
    await page.waitForURL(`${stack.url}/documents?type=memory&q=teal`);
    await page.getByTestId('document-snippet').first().waitFor();
    expect(await rows().count()).toBe(1);
    expect(await rows().first().getByTestId('document-link').textContent()).toBe(TITLE);
    const snippet = rows().first().getByTestId('document-snippet');
    expect(await snippet.locator('mark').allTextContents()).toEqual(['teal']);
    expect(await snippet.textContent()).not.toContain('**');
    expect(await page.getByTestId('documents-count').textContent()).toContain('1 memory match “teal”');

    // "crimson" lives only in version 2, which was replaced by the restore.
    await page.getByTestId('documents-search-input').fill('crimson');
    await page.getByTestId('documents-search-submit').click();
    await page.waitForURL(`${stack.url}/documents?type=memory&q=crimson`);
    await page.getByTestId('documents-empty').waitFor();

    await page.getByTestId('documents-search-clear').click();
    await page.waitForURL(`${stack.url}/documents?type=memory`);
    await rows().first().waitFor();
  });

  it('refuses to save over a change made meanwhile, shows both versions, and reloads the latest', async () => {
    await page.goto(`${stack.url}/documents/${documentId}`);
    await expectVersion(3);
    await page.getByTestId('document-edit').click();
    await page.getByTestId('document-edit-content').fill('My stale edit.');

    // Another tab (or the agent) changes the document first.
    const other = await page.request.put(`${stack.url}/api/agent-documents/${documentId}`, { data: { title: 'Colours, edited elsewhere', expectedVersion: 3 } });
    expect(other.status()).toBe(200);

    await page.getByTestId('document-edit-save').click();
    const conflict = page.getByTestId('document-conflict');
    await conflict.waitFor();
    expect(await conflict.textContent()).toContain('changed meanwhile — reload');
    expect(await conflict.getAttribute('data-expected-version')).toBe('3');
    expect(await conflict.getAttribute('data-current-version')).toBe('4');
    expect(await conflict.textContent()).toContain('You edited version 3; it is now at version 4.');
    expect(await page.getByTestId('document-conflict-draft').textContent()).toBe('My stale edit.');
    expect(await page.getByTestId('document-edit-save').isDisabled()).toBe(true);

    await page.getByTestId('document-conflict-reload').click();
    await expect.poll(() => page.getByTestId('document-edit-title').inputValue()).toBe('Colours, edited elsewhere');
    expect(await page.getByTestId('document-conflict').count()).toBe(0);
    expect(await page.getByTestId('document-edit-content').inputValue()).toBe(ORIGINAL_CONTENT);
    await page.getByTestId('document-edit-cancel').click();
    await expectVersion(4);
    expect(await page.getByTestId('document-title').textContent()).toBe('Colours, edited elsewhere');
  });

  it('creates a document by hand, renders hostile Markdown inert, and deletes it after a confirmation', async () => {
    await openList('?type=document');
    await page.getByTestId('document-new').click();
    await page.getByTestId('new-document').waitFor();
    expect(await page.getByTestId('new-document-type').inputValue()).toBe('document');
    await page.getByTestId('new-document-title').fill('Weekly report');
    await page.getByTestId('new-document-content').fill('## Done\n\n<img src=x onerror="window.__xss=1"> [bad](javascript:window.__xss=2)\n\n- shipped documents');
    await page.getByTestId('new-document-tags').fill('work');
    await page.getByTestId('new-document-save').click();
    await page.waitForURL(/\/documents\/[^/?]+$/);

    expect(await page.getByTestId('document-type').textContent()).toBe('Document');
    await expectVersion(1);
    expect(await content().locator('h2').textContent()).toBe('Done');
    expect(await content().locator('img, script').count()).toBe(0);
    const hrefs = await content().locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
    expect(hrefs.some((href) => href.trim().toLowerCase().startsWith('javascript:'))).toBe(false);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    // Written by hand: no chat to link to.
    expect(await page.getByTestId('document-session-link').count()).toBe(0);
    expect(await page.getByTestId('revision-author').first().getAttribute('data-kind')).toBe('you');

    await page.getByTestId('document-delete').click();
    await page.getByTestId('document-delete-cancel').click();
    expect(await page.getByTestId('document-title').textContent()).toBe('Weekly report');
    await page.getByTestId('document-delete').click();
    expect(await page.getByTestId('document-delete-confirmation').textContent()).toContain('Delete it and all 1 version?');
    await page.getByTestId('document-delete-confirm').click();
    await page.waitForURL(`${stack.url}/documents?type=document`);
    await page.getByTestId('documents-empty').waitFor();
    // The agent's memory is untouched.
    expect(await page.getByTestId('documents-tabs-memory').textContent()).toBe('Memory (1)');
  });

  it('pages the list with Load more', async () => {
    for (let index = 1; index <= 21; index += 1) {
      const created = await page.request.post(`${stack.url}/api/agent-documents`, { data: { type: 'document', title: `Report ${index}`, content: `Report number ${index}.` } });
      expect(created.status()).toBe(201);
    }
    await openList('?type=document');
    await expect.poll(() => rows().count()).toBe(20);
    expect(await rows().first().getByTestId('document-link').textContent()).toBe('Report 21');
    await page.getByTestId('documents-load-more').click();
    await expect.poll(() => rows().count()).toBe(21);
    expect(await rows().last().getByTestId('document-link').textContent()).toBe('Report 1');
    expect(await page.getByTestId('documents-load-more').count()).toBe(0);
  });

  it("answers another user's document with a not-found page", async () => {
    const user = await stack.createUser('user');
    const { page: otherPage, close } = await launchBrowser();
    try {
      await logInByBrowser(otherPage, stack, user);
      await otherPage.goto(`${stack.url}/documents/${documentId}`);
      await otherPage.getByTestId('error-panel').waitFor();
      expect(await otherPage.getByTestId('error-panel').textContent()).toContain('404');
      await otherPage.goto(`${stack.url}/documents`);
      await otherPage.getByTestId('documents-empty').waitFor();
    } finally {
      await close();
    }
  });

  it('fits a phone screen when its summary holds a long unbroken word (a path, a URL, an identifier)', async () => {
    const longWord = `/var/lib/agentq/exports/${'quarterly_revenue_breakdown_'.repeat(4)}final.csv`;
    const created = await page.request.post(`${stack.url}/api/agent-documents`, {
      data: { type: 'document', title: 'Export paths', content: `${longWord}\n\n| region | total |\n|---|---|\n| north | 12 |`, tags: 'exports' },
    });
    expect(created.status()).toBe(201);
    const { id } = await created.json();
    await page.goto(`${stack.url}/documents/${id}`);
    expect(await page.getByTestId('document-summary').textContent()).toContain('quarterly_revenue_breakdown_');
    for (const width of [390, 320]) {
      await page.setViewportSize({ width, height: 900 });
      await expectNoHorizontalOverflow(page, `document page at ${width} px`);
      await openList('?type=document');
      await expectNoHorizontalOverflow(page, `documents list at ${width} px`);
      await page.goto(`${stack.url}/documents/${id}`);
      await page.getByTestId('document-summary').waitFor();
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
