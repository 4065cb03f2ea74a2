import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { messageText } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, expectNoHorizontalOverflow, lastAssistant, logInByApi, logInByBrowser, startLoopback, waitForRunStatus } from './fixtures.ts';

const SLOW = { timeout: 30_000 };

/**
 * Web pages in a knowledge base and attached in the chat, served by a site on 127.0.0.1 (the stack
 * runs with FETCH_ALLOW_PRIVATE_NETWORKS=1, the loopback escape hatch); the refused address is a
 * cloud metadata one, refused by the address check before any connection, whatever the hatch says.
 */
describe('Web pages', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let site: Awaited<ReturnType<typeof startLoopback>>;
  let browser: LaunchedBrowser;
  let page: Page;
  let admin: Awaited<ReturnType<typeof logInByApi>>;
  let guideVersion = 1;
  const sitePaths: string[] = [];

  beforeAll(async () => {
    site = await startLoopback((request, response) => {
      sitePaths.push(request.url ?? '');
      if (request.url === '/office-guide') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        const hours = guideVersion === 1 ? 'The office opens at nine and the roof terrace closes at six.' : 'The office opens at eight thirty since the move.';
        return void response.end(`<!doctype html><html><head><title>Office guide</title></head><body><main><h1>Opening hours</h1><p>${hours}</p></main></body></html>`);
      }
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end('<h1>Not found</h1>');
    });
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
    await site?.close();
  });

  it('adds pages to a knowledge base: one becomes ready under its title, a missing one fails with the reason, and a page can be fetched again', async () => {
    const base = await createByApi(stack, admin, '/api/knowledge', { name: 'Office' });
    await page.goto(`${stack.url}/knowledge/${base.id}`);
    await page.getByTestId('knowledge-files-empty').waitFor(SLOW);
    await page.getByTestId('knowledge-page-urls').fill(`${site.url}/office-guide\n${site.url}/moved-away`);
    await page.getByTestId('knowledge-add-pages').click();

    const ready = page.locator('[data-testid="knowledge-file-row"][data-file-name="Office guide"][data-status="ready"]');
    await ready.waitFor(SLOW);
    expect(await ready.getByTestId('knowledge-file-source').textContent()).toBe(`${site.url}/office-guide`);
    expect(Number(await ready.getByTestId('knowledge-file-chunks').textContent())).toBeGreaterThan(0);
    const failed = page.locator('[data-testid="knowledge-file-row"][data-status="failed"]');
    await failed.waitFor(SLOW);
    expect(await failed.getByTestId('knowledge-file-error').textContent()).toBe('The page answered HTTP 404 Not Found');
    expect(await page.getByTestId('knowledge-page-urls').inputValue()).toBe('');
    await expectNoHorizontalOverflow(page, 'knowledge base with web pages');

    await page.getByTestId('knowledge-search-input').fill('when does the roof terrace close');
    await page.getByTestId('knowledge-search').click();
    await expect.poll(() => page.getByTestId('knowledge-passage').first().textContent(), SLOW).toContain('roof terrace closes at six');

    // The page changed: "Fetch again" reads it anew.
    guideVersion = 2;
    await ready.getByTestId('knowledge-file-refetch').click();
    await page.getByTestId('knowledge-search-input').fill('eight thirty');
    await expect
      .poll(async () => {
        await page.getByTestId('knowledge-search').click();
        return page.getByTestId('knowledge-passages').textContent().catch(() => '');
      }, SLOW)
      .toContain('opens at eight thirty');
    guideVersion = 1;
  });

  it('attaches a page in the chat as a chip with its title, and the model gets its text; a refused address says why and sends nothing', async () => {
    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('message-input').fill(`What time does it open? ${site.url}/office-guide`);
    await page.getByTestId('attach-page').click();
    const chip = page.getByTestId('attachment-page');
    await chip.waitFor(SLOW);
    expect(await chip.textContent()).toBe('Office guide');
    // Attached: no more offer for that address.
    expect(await page.getByTestId('attach-page').count()).toBe(0);
    await expectNoHorizontalOverflow(page, 'composer with a page');

    const before = llm.requests.length;
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');
    const sentToModel = llm.requests.slice(before).map((request) => request.messages.map((message) => messageText(message)).join('\n')).join('\n');
    expect(sentToModel).toContain('The office opens at nine and the roof terrace closes at six.');
    expect(sentToModel).toContain(`Source: ${site.url}/office-guide`);
    expect(sentToModel).toContain('What time does it open?');
    expect(await page.getByTestId('user-message').last().getByTestId('message-file').textContent()).toContain('Office guide.md');
    expect(await page.getByTestId('attachment').count()).toBe(0);

    // A `#URL` token is read on send: a refused address stops the send and says why.
    const turns = await page.getByTestId('assistant-message').count();
    const requestsBefore = llm.requests.length;
    const pathsBefore = sitePaths.length;
    await page.getByTestId('message-input').fill('#http://169.254.169.254/latest/meta-data/ what is in here?');
    await page.getByTestId('message-input').press('Enter');
    const problem = page.getByTestId('page-error');
    await problem.waitFor(SLOW);
    expect(await problem.textContent()).toMatch(/^http:\/\/169\.254\.169\.254\/latest\/meta-data\/: Refused: 169\.254\.169\.254, which is in cloud instance metadata/);
    expect(await page.getByTestId('message-input').inputValue()).toBe('#http://169.254.169.254/latest/meta-data/ what is in here?');
    expect(await page.getByTestId('assistant-message').count()).toBe(turns);
    expect(llm.requests.length).toBe(requestsBefore);

    // A `#URL` token of a page that can be read: attached, the token left out of the words.
    await page.getByTestId('message-input').fill(`#${site.url}/office-guide and the terrace?`);
    await page.getByTestId('message-input').press('Enter');
    await expect.poll(() => page.getByTestId('assistant-message').count(), SLOW).toBe(turns + 1);
    await waitForRunStatus(page, 'succeeded');
    const last = llm.requests.at(-1)!;
    const lastUser = [...last.messages].reverse().find((message) => message.role === 'user')!;
    expect(messageText(lastUser)).toContain('roof terrace closes at six');
    expect(messageText(lastUser)).toContain('and the terrace?');
    expect(messageText(lastUser)).not.toContain(`#${site.url}`);
    expect(sitePaths.length).toBe(pathsBefore + 1);
    expect(await lastAssistant(page).getAttribute('data-status')).toBe('succeeded');
  });
});
