import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, expectNoHorizontalOverflow, lastAssistant, logInByApi, logInByBrowser, waitForRunStatus } from './fixtures.ts';

const SLOW = { timeout: 30_000 };

const HANDBOOK = `# Staff handbook

## Annual leave

Full-time staff get 25 days of annual leave each calendar year. Unused days carry over until the end of March.

## Remote access

The VPN needs two-factor authentication. Ask the service desk for a hardware token.
`;

describe('Knowledge', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let admin: Awaited<ReturnType<typeof logInByApi>>;

  beforeAll(async () => {
    // The demo model: `[[tool:NAME {...}]]` in a message makes it call that tool, then it shows the result.
    llm = await startFakeLlm();
    stack = await startStack();
    admin = await logInByApi(stack);
    await createFakeModel(stack, admin, llm);
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

  it('creates a base, uploads a Markdown file that becomes ready, finds the right passage, and a chat run retrieves it through a knowledge tool', async () => {
    // Knowledge bases live under Documents (the main nav keeps four sections, for phones).
    await page.getByTestId('nav-documents').click();
    await page.getByTestId('documents-knowledge').click();
    await page.waitForURL(`${stack.url}/knowledge`);
    expect(await page.getByTestId('nav-documents').getAttribute('aria-current')).toBe('page');
    await page.getByTestId('knowledge-empty').waitFor(SLOW);

    await page.getByTestId('knowledge-new').click();
    await page.getByTestId('knowledge-name').fill('Staff handbook');
    await page.getByTestId('knowledge-description').fill('Leave, remote access');
    await page.getByTestId('knowledge-create').click();
    await page.waitForURL(/\/knowledge\/kb_[^/]+$/);
    await page.getByTestId('knowledge-files-empty').waitFor(SLOW);
    const baseId = (await page.getByTestId('knowledge-id').textContent())!.trim();

    // A picture is refused, with the reason next to its name.
    await page.getByTestId('knowledge-file-input').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]) });
    expect(await page.getByTestId('knowledge-upload-error').textContent()).toContain('photo.png: Only PDF files and UTF-8 text files');

    await page.getByTestId('knowledge-file-input').setInputFiles({ name: 'handbook.md', mimeType: 'text/markdown', buffer: Buffer.from(HANDBOOK) });
    const row = page.locator('[data-testid="knowledge-file-row"][data-file-name="handbook.md"]');
    await row.waitFor(SLOW);
    // Processing on the server; the page refreshes until the file is ready.
    await page.locator('[data-testid="knowledge-file-row"][data-file-name="handbook.md"][data-status="ready"]').waitFor(SLOW);
    expect(await row.getByTestId('knowledge-file-status').textContent()).toBe('Ready');
    expect(Number(await row.getByTestId('knowledge-file-chunks').textContent())).toBeGreaterThan(0);
    await expectNoHorizontalOverflow(page, 'knowledge base page');

    await page.getByTestId('knowledge-search-input').fill('How do I get a hardware token for the VPN?');
    await page.getByTestId('knowledge-search').click();
    const first = page.getByTestId('knowledge-passage').first();
    await first.waitFor(SLOW);
    expect(await first.textContent()).toContain('handbook.md');
    expect(await first.textContent()).toContain('Ask the service desk for a hardware token.');
    expect(await page.getByTestId('knowledge-search-mode').textContent()).toContain('full-text');

    // A file dropped on the drop zone is uploaded too; removing it takes it off the list.
    const transfer = await page.evaluateHandle(() => {
      const data = new DataTransfer();
      data.items.add(new File(['Parking spaces are assigned by the facilities team.'], 'parking.txt', { type: 'text/plain' }));
      return data;
    });
    await page.getByTestId('knowledge-drop').dispatchEvent('drop', { dataTransfer: transfer });
    const parking = page.locator('[data-testid="knowledge-file-row"][data-file-name="parking.txt"][data-status="ready"]');
    await parking.waitFor(SLOW);
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalOverflow(page, 'knowledge base page, phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    await parking.getByTestId('knowledge-file-delete').click();
    await parking.waitFor({ state: 'detached', ...SLOW });

    // The list shows the base with its counts.
    await page.goto(`${stack.url}/knowledge`);
    const listed = page.locator(`[data-testid="knowledge-row"][data-base-id="${baseId}"]`);
    await listed.waitFor(SLOW);
    expect(await listed.textContent()).toMatch(/Files: 1 · Passages: [1-9]/);

    // The admin attaches their base to a knowledge tool; the demo model calls it from a chat.
    await createByApi(stack, admin, '/api/agent-tools', { name: 'Handbook', slug: 'handbook', type: 'knowledge', config: { knowledgeBaseIds: [baseId], topK: 1 } });
    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('send-button').waitFor(SLOW);
    await page.getByTestId('message-input').fill('[[tool:handbook {"query":"VPN hardware token"}]]');
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');
    const card = lastAssistant(page).getByTestId('tool-card');
    await card.getByTestId('tool-status').filter({ hasText: 'Succeeded' }).waitFor(SLOW);
    const answer = (await lastAssistant(page).textContent()) ?? '';
    expect(answer).toContain('file: handbook.md');
    expect(answer).toContain('Ask the service desk for a hardware token.');
  });

  it('after an embedding model is set up, offers to process the files it did not embed, and then searches by meaning', async () => {
    await createByApi(stack, admin, '/api/models', { name: 'Embeddings', baseUrl: llm.url, modelId: 'text-embedding-3-small', apiKey: 'sk-embed', embedsText: true });
    await page.goto(`${stack.url}/knowledge`);
    await page.getByTestId('knowledge-link').first().click();
    await page.waitForURL(/\/knowledge\/kb_[^/]+$/);
    const notice = page.getByTestId('knowledge-reindex-notice');
    await notice.waitFor(SLOW);
    expect(await notice.textContent()).toContain('Files not embedded by the current embedding model (text-embedding-3-small): 1.');
    await page.getByTestId('knowledge-reindex').click();
    // The workers process it again, now with embeddings; the page follows until it is ready.
    await page.getByTestId('knowledge-reindex-queued').filter({ hasText: 'Queued 1 file(s).' }).waitFor(SLOW);
    await page.locator('[data-testid="knowledge-file-row"][data-file-name="handbook.md"][data-status="ready"]').waitFor(SLOW);
    expect(await notice.count()).toBe(0);

    // Ranked by the embeddings too now (the page says so).
    await page.getByTestId('knowledge-search-input').fill('annual leave allowance');
    await page.getByTestId('knowledge-search').click();
    await page.getByTestId('knowledge-search-mode').filter({ hasText: 'meaning' }).waitFor(SLOW);
    expect(await page.getByTestId('knowledge-passage').first().textContent()).toContain('25 days of annual leave');

    // Admins can do the same for every user's files from Admin → Models; nothing is left to do here.
    await page.goto(`${stack.url}/admin/models`);
    await page.getByTestId('models-reindex-knowledge-button').click();
    await page.getByTestId('models-reindex-notice').filter({ hasText: 'Queued 0 knowledge file(s)' }).waitFor(SLOW);
  });
});
