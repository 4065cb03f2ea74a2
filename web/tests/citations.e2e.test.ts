import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { byLastUserMessage } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { startFakeSearchProvider, type FakeSearchProvider } from '../../shared/src/tools/web-search/test-server.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, expectNoHorizontalOverflow, lastAssistant, logInByApi, logInByBrowser, waitForRunStatus } from './fixtures.ts';

const SLOW = { timeout: 30_000 };

const HANDBOOK = `# Remote access

The VPN needs two-factor authentication. Ask the service desk for a hardware token.
`;

// The knowledge search finds one passage ([1]); the web search that follows continues at [2] and [3].
const ANSWER = 'Ask the service desk for a token [1]. agentq 2.0 added web search [2]. Not a source: [7]. In code: `list[1]`.';

describe('Citations', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let provider: FakeSearchProvider;
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    llm = await startFakeLlm({
      script: byLastUserMessage([
        {
          match: 'vpn',
          reply: [
            { toolCalls: [{ name: 'handbook', input: { query: 'VPN hardware token' } }] },
            { toolCalls: [{ name: 'search', input: { query: 'agentq release' } }] },
            { text: ANSWER },
          ],
        },
        { match: /./, reply: { text: 'Hello [1].' } },
      ]),
    });
    provider = await startFakeSearchProvider();
    stack = await startStack();
    const admin = await logInByApi(stack);
    await createFakeModel(stack, admin, llm);
    // The admin's base, attached to a knowledge tool; a SearXNG on loopback (the stack allows it) for web search.
    const base = await createByApi(stack, admin, '/api/knowledge', { name: 'Handbook' });
    const form = new FormData();
    form.append('file', new File([HANDBOOK], 'handbook.md', { type: 'text/markdown' }));
    const upload = await fetch(`${stack.url}/api/knowledge/${base.id}/files`, { method: 'POST', headers: { cookie: admin.cookie }, body: form });
    expect(upload.status, await upload.clone().text()).toBe(201);
    // Processed on the worker's queue: ready once its passages are stored.
    for (let tries = 0; ; tries += 1) {
      const detail = (await (await fetch(`${stack.url}/api/knowledge/${base.id}`, { headers: admin })).json()) as { files: { status: string }[] };
      if (detail.files[0]?.status === 'ready') break;
      if (tries > 300) throw new Error(`the knowledge file is still ${detail.files[0]?.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await createByApi(stack, admin, '/api/agent-tools', { name: 'Handbook', slug: 'handbook', type: 'knowledge', config: { knowledgeBaseIds: [base.id], topK: 1 } });
    await createByApi(stack, admin, '/api/agent-tools', { name: 'Search', slug: 'search', type: 'web-search', config: { provider: 'searxng', baseUrl: provider.baseUrls.searxng, maxResults: 2 } });

    browser = await launchBrowser();
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await logInByBrowser(page, stack);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await llm?.close();
    await provider?.close();
  });

  /** The answer's citation chips, the Sources row and the source cards, on whatever page shows the answer. */
  async function expectCitations(target: Page, where: string) {
    const answer = lastAssistant(target);
    const text = answer.getByTestId('markdown-text');
    await text.locator('button.citation').first().waitFor(SLOW);
    // [1] and [2] are chips; [7] names no source and `list[1]` is code: both stay as written.
    expect(await text.locator('button.citation').allInnerTexts(), where).toEqual(['1', '2']);
    expect(await text.innerText(), where).toContain('Not a source: [7].');
    expect(await text.locator('code').innerText(), where).toBe('list[1]');

    // Clicking a chip opens its source: the knowledge passage, with its file.
    await text.locator('button.citation[data-citation="1"]').click();
    const card = target.getByTestId('source-popover');
    await card.waitFor(SLOW);
    expect(await card.getByTestId('source-popover-title').innerText(), where).toBe('handbook.md');
    expect(await card.innerText(), where).toContain('Knowledge base · Passage 1');
    expect(await card.getByTestId('source-popover-snippet').innerText(), where).toContain('Ask the service desk for a hardware token.');
    expect(await card.getByTestId('source-popover-link').count(), where).toBe(0);
    await target.keyboard.press('Escape');
    await card.waitFor({ state: 'detached', ...SLOW });

    // Hovering a web source's chip shows it, with a link that opens without opener or referrer.
    await text.locator('button.citation[data-citation="2"]').hover();
    await card.waitFor(SLOW);
    expect(await card.getByTestId('source-popover-title').innerText(), where).toBe('agentq 2.0 released');
    const link = card.getByTestId('source-popover-link');
    expect(await link.getAttribute('href'), where).toBe('https://example.com/news/agentq-2');
    expect(await link.getAttribute('target'), where).toBe('_blank');
    expect(await link.getAttribute('rel'), where).toBe('noopener noreferrer');
    await target.mouse.move(5, 5);
    await card.waitFor({ state: 'detached', ...SLOW });

    // Under the answer: the sources it cites, numbered as in the text (the uncited [3] is not listed).
    const row = answer.getByTestId('answer-sources');
    expect(await row.getByRole('heading').innerText(), where).toMatch(/sources/i);
    expect(await row.getByTestId('source-chip').allInnerTexts(), where).toEqual(['1\nhandbook.md', '2\nagentq 2.0 released']);
    await row.getByTestId('source-chip').nth(1).click();
    expect(await card.getByTestId('source-popover-snippet').innerText(), where).toBe('The agentq 2.0 release adds web search & more.');
    await target.keyboard.press('Escape');
    await expectNoHorizontalOverflow(target, where);
  }

  it('shows [n] as chips that open their source, and a Sources row, live, after a reload and on the shared page', async () => {
    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('send-button').waitFor(SLOW);
    await page.getByTestId('message-input').fill('How do I get onto the vpn?');
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');
    await expectCitations(page, 'chat');

    // From the stored tool outputs after a reload.
    await page.reload();
    await waitForRunStatus(page, 'succeeded');
    await expectCitations(page, 'chat after reload');

    // The Markdown export lists the sources.
    const sessionId = page.url().split('/').at(-1)!;
    const exported = await page.evaluate(async (id) => (await fetch(`/api/sessions/${id}/export?format=markdown`)).text(), sessionId);
    expect(exported).toContain('**Sources**\n\n- [1] handbook.md (knowledge base, passage 1)');
    expect(exported).toContain('- [2] [agentq 2.0 released](<https://example.com/news/agentq-2>)');

    // A shared link shows them too, read-only.
    await page.getByTestId('chat-share').click();
    await page.getByTestId('share-create').click();
    const link = await page.getByTestId('share-link').inputValue();
    await page.getByTestId('modal-close').click();
    await page.goto(link);
    await page.getByTestId('shared-conversation').waitFor(SLOW);
    await expectCitations(page, 'shared page');
  });

  it('numbers nothing in an answer without sources', async () => {
    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('send-button').waitFor(SLOW);
    await page.getByTestId('message-input').fill('hello [1]');
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');
    expect(await lastAssistant(page).getByTestId('markdown-text').innerText()).toBe('Hello [1].');
    expect(await lastAssistant(page).locator('button.citation').count()).toBe(0);
    expect(await lastAssistant(page).getByTestId('answer-sources').count()).toBe(0);
  });
});
