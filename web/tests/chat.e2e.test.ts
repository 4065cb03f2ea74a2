import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { byLastUserMessage } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, lastAssistant, logInByApi, logInByBrowser, sendMessage, startLoopback, waitForRunStatus } from './fixtures.ts';

const WEATHER_PAGE = '<!doctype html><html><body><h1>Weather report</h1><p>Sunny, <strong>21 degrees</strong>.</p></body></html>';
// The fetch tool waits this long for the page, so the tool card is seen running.
const PAGE_DELAY_MS = 1500;
const WEATHER_ANSWER = 'It is **sunny** in Oslo.\n\n- 21 degrees\n- light wind';
const SLOW_WORDS = Array.from({ length: 80 }, (_, index) => `w${index + 1}`);
const XSS_ANSWER =
  'Careful: <img src=x onerror="window.__xss=1"> and <script>window.__xss=3</script> and [click](javascript:window.__xss=2) and [docs](https://example.com/docs).';

describe('chat page', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let loopback: Awaited<ReturnType<typeof startLoopback>>;
  let pageUrl = '';
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    loopback = await startLoopback((request, response) => {
      const answer = () => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(WEATHER_PAGE);
      };
      if (request.url?.includes('loop')) answer();
      else setTimeout(answer, PAGE_DELAY_MS);
    });
    pageUrl = `${loopback.url}/weather`;

    llm = await startFakeLlm({
      script: byLastUserMessage([
        {
          match: /^weather/i,
          reply: [
            {
              reasoning: 'The user wants the weather. I should read the weather page before answering them.',
              toolCalls: [{ name: 'web', input: { url: pageUrl } }],
              latency: { timeToFirstTokenMs: 1000, interTokenMs: 120, tokenCount: 12 },
            },
            { text: WEATHER_ANSWER, latency: { timeToFirstTokenMs: 100, interTokenMs: 20 } },
          ],
        },
        { match: /^slow/i, reply: { text: SLOW_WORDS.join(' '), latency: { timeToFirstTokenMs: 200, interTokenMs: 70 } } },
        { match: /^xss/i, reply: { text: XSS_ANSWER } },
        { match: /^stop/i, reply: { text: SLOW_WORDS.join(' '), latency: { timeToFirstTokenMs: 200, interTokenMs: 100 } } },
        { match: /^fail/i, reply: { error: { status: 400, message: 'The fake model refuses this request.' } } },
        // Calls the tool for as long as tools are offered; answers once the last step has none.
        { match: /^loop/i, reply: (request) => (request.tools?.length ? { toolCalls: [{ name: 'web', input: { url: `${pageUrl}?loop` } }] } : { text: 'Here is what I found.' }) },
      ]),
    });

    stack = await startStack();
    const headers = await logInByApi(stack);
    await createFakeModel(stack, headers, llm);
    await createByApi(stack, headers, '/api/agent-tools', { name: 'Web', slug: 'web', type: 'fetch' });

    browser = await launchBrowser();
    page = browser.page;
    // Test hook: when sessionStorage 'cut-events' is set, the next run-events response breaks
    // off after a few reads, as a dropped connection does (the flag is cleared on use).
    await page.addInitScript(() => {
      const originalFetch = window.fetch.bind(window);
      window.fetch = async (input, init) => {
        const response = await originalFetch(input, init);
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        if (!url.includes('/events') || !sessionStorage.getItem('cut-events') || !response.body) return response;
        sessionStorage.removeItem('cut-events');
        const reader = response.body.getReader();
        let reads = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (++reads > 8) {
              await reader.cancel();
              controller.error(new TypeError('network error (cut by the test)'));
              return;
            }
            const { done, value } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(value);
          },
        });
        return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
      };
    });
    await page.setViewportSize({ width: 1280, height: 900 });
    await logInByBrowser(page, stack);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await llm?.close();
    await loopback?.close();
  });

  it('sends from a new chat; the tool card goes from running to its result, reasoning collapses with its duration, and the answer renders as Markdown', async () => {
    await page.getByTestId('sessions-empty').waitFor();
    const input = page.getByTestId('message-input');
    await input.fill('weather');
    // Shift+Enter is a new line; Enter sends.
    await input.press('Shift+Enter');
    await input.pressSequentially('in Oslo?');
    expect(await input.inputValue()).toBe('weather\nin Oslo?');
    await input.press('Enter');

    await page.waitForURL(/\/chat\/[^/]+$/);
    expect(await page.getByTestId('user-message').textContent()).toContain('weather\nin Oslo?');
    // Nothing has arrived yet: the three dots show, and Stop is offered.
    await page.getByTestId('loading-dots').waitFor();
    await page.getByTestId('stop-button').waitFor();

    // Reasoning is open while it streams …
    const reasoning = lastAssistant(page).getByTestId('reasoning');
    await reasoning.and(page.locator('[data-state="streaming"]')).waitFor();
    expect(await reasoning.getByTestId('reasoning-toggle').getAttribute('aria-expanded')).toBe('true');
    expect(await reasoning.getByTestId('reasoning-label').textContent()).toBe('Thinking…');

    // … the tool card shows the call running with its input …
    const card = lastAssistant(page).getByTestId('tool-card');
    await card.getByTestId('tool-status').filter({ hasText: 'Running…' }).waitFor();
    expect(await card.getByTestId('tool-name').textContent()).toBe('web');
    expect(JSON.parse((await card.getByTestId('tool-input').textContent()) ?? '')).toEqual({ url: pageUrl });
    // … and reasoning closed once it was done, with how long it took.
    expect(await reasoning.getAttribute('data-state')).toBe('done');
    expect(await reasoning.getByTestId('reasoning-toggle').getAttribute('aria-expanded')).toBe('false');
    expect(await reasoning.getByTestId('reasoning-label').textContent()).toMatch(/^Thought for \d+\.\d s$/);
    expect(await reasoning.getByTestId('reasoning-text').isHidden()).toBe(true);

    // The result arrives: succeeded, with duration, HTTP status, size and the page as Markdown.
    await card.getByTestId('tool-status').filter({ hasText: 'Succeeded' }).waitFor({ timeout: 15_000 });
    expect(await card.getByTestId('tool-http-status').textContent()).toBe('HTTP 200');
    expect(await card.getByTestId('tool-size').textContent()).toMatch(/^\d+ B$/);
    expect(await card.getByTestId('tool-duration').textContent()).toMatch(/^(\d+ ms|\d+\.\d s)$/);
    expect(await card.getByTestId('tool-result-text').locator('h1').textContent()).toBe('Weather report');

    await waitForRunStatus(page, 'succeeded');
    const answer = lastAssistant(page).getByTestId('markdown-text');
    expect(await answer.locator('strong').textContent()).toBe('sunny');
    expect(await answer.locator('li').allTextContents()).toEqual(['21 degrees', 'light wind']);
    expect(await page.getByTestId('send-button').isVisible()).toBe(true);
    // Parts in arrival order: reasoning, then the tool call, then the answer.
    const order = await lastAssistant(page)
      .locator('[data-testid="reasoning"], [data-testid="tool-card"], [data-testid="markdown-text"]')
      .evaluateAll((elements) => elements.map((element) => element.getAttribute('data-testid')));
    expect(order).toEqual(['reasoning', 'tool-card', 'markdown-text']);

    // The first message named the session in the sidebar.
    await page.getByTestId('session-link').filter({ hasText: 'weather in Oslo?' }).waitFor();
    expect(await page.getByTestId('session-link').first().getAttribute('aria-current')).toBe('page');

    // A reload shows the stored message the same way, reasoning collapsed.
    await page.reload();
    await waitForRunStatus(page, 'succeeded');
    expect(await lastAssistant(page).getByTestId('tool-status').textContent()).toContain('Succeeded');
    expect(await lastAssistant(page).getByTestId('reasoning-label').textContent()).toMatch(/^Thought for \d+\.\d s$/);
    expect(await lastAssistant(page).getByTestId('reasoning-toggle').getAttribute('aria-expanded')).toBe('false');
    expect(await lastAssistant(page).getByTestId('markdown-text').locator('li').count()).toBe(2);
    // The reader can open the reasoning again.
    await lastAssistant(page).getByTestId('reasoning-toggle').click();
    expect(await lastAssistant(page).getByTestId('reasoning-text').textContent()).toContain('I should read the weather page');
  });

  it('resumes the live stream after a reload mid-run, without duplicating text', async () => {
    await sendMessage(page, 'slow story please');
    const answer = lastAssistant(page).getByTestId('markdown-text');
    await answer.filter({ hasText: 'w5 ' }).waitFor();

    await page.reload();
    // The run goes on after the reload: the page follows it live (Stop offered) until it ends.
    await page.getByTestId('stop-button').waitFor();
    expect(await page.getByTestId('user-message').count()).toBe(2);
    expect(await page.getByTestId('assistant-message').count()).toBe(2);
    await waitForRunStatus(page, 'succeeded');
    expect((await lastAssistant(page).getByTestId('markdown-text').textContent())?.trim()).toBe(SLOW_WORDS.join(' '));
    expect(await page.getByTestId('assistant-message').count()).toBe(2);

    // And what the server stored is the same text.
    await page.reload();
    await waitForRunStatus(page, 'succeeded');
    expect((await lastAssistant(page).getByTestId('markdown-text').textContent())?.trim()).toBe(SLOW_WORDS.join(' '));
  });

  it('reconnects a dropped event stream with Last-Event-ID and shows every token exactly once', async () => {
    const eventRequests: { url: string; lastEventId: string | undefined }[] = [];
    const onRequest = (request: { url(): string; headers(): Record<string, string> }) => {
      if (request.url().includes('/events')) eventRequests.push({ url: request.url(), lastEventId: request.headers()['last-event-id'] });
    };
    page.on('request', onRequest);
    try {
      await page.getByTestId('send-button').waitFor();
      await page.evaluate(() => sessionStorage.setItem('cut-events', '1'));
      await sendMessage(page, 'slow again, with a dropped connection');
      await waitForRunStatus(page, 'succeeded');
      expect((await lastAssistant(page).getByTestId('markdown-text').textContent())?.trim()).toBe(SLOW_WORDS.join(' '));
      expect(eventRequests.length).toBe(2);
      expect(eventRequests[0]!.lastEventId).toBeUndefined();
      expect(Number(eventRequests[1]!.lastEventId)).toBeGreaterThan(0);
    } finally {
      page.off('request', onRequest);
    }
  });

  it('renders a hostile answer as inert text: no script runs and no javascript: link survives', async () => {
    await sendMessage(page, 'xss test');
    await waitForRunStatus(page, 'succeeded');
    const answer = lastAssistant(page).getByTestId('markdown-text');
    expect(await answer.textContent()).toContain('<img src=x onerror="window.__xss=1">');
    expect(await answer.locator('img, script').count()).toBe(0);
    const hrefs = await answer.locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(hrefs.some((href) => href?.trim().toLowerCase().startsWith('javascript:'))).toBe(false);
    const docs = answer.locator('a', { hasText: 'docs' });
    expect(await docs.getAttribute('href')).toBe('https://example.com/docs');
    expect(await docs.getAttribute('target')).toBe('_blank');
    expect(await docs.getAttribute('rel')).toContain('noopener noreferrer');
    const click = answer.getByText('click');
    if ((await click.count()) > 0) await click.first().click();
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  });

  it('stops a slow run: the partial answer stays and the turn is marked Stopped, also after a reload', async () => {
    await sendMessage(page, 'stop this one');
    const answer = lastAssistant(page).getByTestId('markdown-text');
    await answer.filter({ hasText: 'w3 ' }).waitFor();
    await page.getByTestId('stop-button').click();
    await lastAssistant(page).getByTestId('run-stopped').waitFor();
    expect(await lastAssistant(page).getAttribute('data-status')).toBe('cancelled');
    const partial = (await answer.textContent())?.trim() ?? '';
    expect(partial).toMatch(/^w1 w2 w3/);
    expect(partial.length).toBeLessThan(SLOW_WORDS.join(' ').length);
    await page.getByTestId('send-button').waitFor();

    await page.reload();
    await lastAssistant(page).getByTestId('run-stopped').waitFor();
    expect((await lastAssistant(page).getByTestId('markdown-text').textContent())?.trim()).toBe(partial);
  });

  it('shows a failed run in red, and the step-limit note when the tools used up every step', async () => {
    await sendMessage(page, 'fail please');
    await waitForRunStatus(page, 'failed');
    expect(await lastAssistant(page).getByTestId('run-error').textContent()).toContain('The fake model refuses this request.');

    await sendMessage(page, 'loop until the limit');
    await waitForRunStatus(page, 'succeeded', 60_000);
    await lastAssistant(page).getByTestId('step-limit-note').waitFor();
    expect(await lastAssistant(page).getByTestId('step-limit-note').textContent()).toBe('Reached the tool-call limit; the answer may be incomplete.');
    const cards = lastAssistant(page).getByTestId('tool-card');
    expect(await cards.count()).toBeGreaterThan(3);
    // With that many calls, finished cards show only their header line until opened.
    const first = cards.first();
    expect(await first.getByTestId('tool-status').textContent()).toContain('Succeeded');
    expect(await first.getByTestId('tool-input').isHidden()).toBe(true);
    await first.getByTestId('tool-toggle').click();
    expect(await first.getByTestId('tool-input').isVisible()).toBe(true);
    expect(await first.getByTestId('tool-toggle').getAttribute('aria-expanded')).toBe('true');
    expect(await lastAssistant(page).getByTestId('markdown-text').textContent()).toContain('Here is what I found.');

    // Both outcomes survive a reload (read from the runs).
    await page.reload();
    await lastAssistant(page).getByTestId('step-limit-note').waitFor();
    expect(await page.getByTestId('run-error').last().textContent()).toContain('The fake model refuses this request.');
  });
});
