/**
 * The chat a user lives in, at 1280 px and on a 390 × 844 phone: long lines never widen the page,
 * sessions are renamed, searched (English and Chinese) and deleted, answers are regenerated with a
 * version switcher, questions edited and resent on a branch of their own, messages and code blocks
 * copied, code highlighted, formulas typeset, Esc stops a run, model errors read like sentences.
 * `UPDATE_SCREENSHOTS=1` also writes the README screenshots to docs/screenshots/.
 */
import { mkdir, readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { byLastUserMessage, lastUserMessageImages, messageText, type ChatCompletionRequest } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { pdfWithPages } from '../../shared/src/testing/pdf.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, expectNoHorizontalOverflow as expectNoOverflowOn, lastAssistant, logInByApi, logInByBrowser, sendMessage, startLoopback, waitForRunStatus as waitForStatus } from './fixtures.ts';

const eventLog: string[] = [];
async function waitForRunStatus(page: Page, status: string, timeout?: number) {
  try {
    await waitForStatus(page, status, timeout);
  } catch (error) {
    console.log('DEBUG', page.url(), '\n', eventLog.slice(-30).join('\n'), '\n', await page.getByTestId('conversation').evaluate((element) => element.outerHTML.replace(/<!---->/g, '').slice(0, 2500)));
    console.log('STACK', stack.logs().slice(-4000));
    throw error;
  }
}

const LONG_PATH = 'x'.repeat(5000);
// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const LONG_BODY = 'y'.repeat(5000);
const LONG_CODE_LINE = `const data = "${'z'.repeat(3000)}";`;
const CODE_ANSWER = `Here is the code:\n\n\`\`\`javascript\n${LONG_CODE_LINE}\nfunction greet(name) {\n  return 'hi ' + name;\n}\n\`\`\`\n\nDone.`;
const WIDE_SUM = Array.from({ length: 60 }, (_, index) => `x_{${index + 1}}`).join(' + ');
const MATH_ANSWER = `Euler: $e^{i\\pi} + 1 = 0$, and \\(a^2 + b^2 = c^2\\).\n\n$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\n$$${WIDE_SUM}$$\n\nThat costs $5 and $10.`;
const READ_ANSWER = 'Run **the tests** like this:\n\n```bash\nnpm test\n```\n\nThen read [the guide](https://docs.example/guide).';
const DIAGRAM = 'flowchart LR\n  Ask[Ask a question] --> Queue[Job queue]\n  Queue --> Worker\n  Worker -->|streams| Answer\n  Evil["<img src=x onerror=window.pwned=1>"] --> Worker\n  click Ask call alert("x")';
const DIAGRAM_ANSWER = `The flow:\n\n\`\`\`mermaid\n${DIAGRAM}\n\`\`\`\n\nAnd a broken one:\n\n\`\`\`mermaid\nflowchart LR\n  A -->\n\`\`\``;
const SLOW_WORDS = Array.from({ length: 120 }, (_, index) => `w${index + 1}`).join(' ');
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';
const SCREENSHOT_DIR = new URL('../../docs/screenshots/', import.meta.url);

const lastUserText = (request: ChatCompletionRequest) => messageText(request.messages.findLast((message) => message.role === 'user')!);

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

let stack: Stack;
let llm: FakeLlm;
let loopback: Awaited<ReturnType<typeof startLoopback>>;
let browser: LaunchedBrowser;
let page: Page;
let answerCount = 0;
/** Every request the fake model received, to check what context a run was given. */
const requests: ChatCompletionRequest[] = [];
/** Every path the loopback site was asked for (a preview must ask for none). */
const loopbackPaths: string[] = [];
/** A page a model writes: its script reports what it could reach from the preview's sandbox. */
const pageAnswer = (site: string) =>
  [
    'Here is the page:',
    '',
    '```html',
    '<!doctype html><html><body>',
    '<h1 id="title">Waiting</h1><p id="parent">?</p><p id="cookie">?</p><p id="net">?</p>',
    `<a id="away" href="${site}/navigated">away</a> <button id="leave" onclick="location.href = '${site}/left'">leave</button>`,
    `<img src="${site}/pixel.png" alt="">`,
    '<script>',
    "document.getElementById('title').textContent = 'Made by a script';",
    "try { void parent.document.title; document.getElementById('parent').textContent = 'parent reached'; } catch { document.getElementById('parent').textContent = 'parent blocked'; }",
    "try { void document.cookie; document.getElementById('cookie').textContent = 'cookie read'; } catch { document.getElementById('cookie').textContent = 'cookie blocked'; }",
    `Promise.allSettled([fetch('/api/sessions'), fetch('${site}/beacon')]).then((all) => { document.getElementById('net').textContent = all.every((one) => one.status === 'rejected') ? 'network blocked' : 'network reached'; });`,
    '</script></body></html>',
    '```',
  ].join('\n');

beforeAll(async () => {
  loopback = await startLoopback((request, response) => {
    loopbackPaths.push(request.url ?? '');
    if (request.url?.startsWith('/missing')) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not here');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(LONG_BODY);
  });
  llm = await startFakeLlm({
    script: (request) => {
      requests.push(request);
      return byLastUserMessage([
        // The title prompt of a model with "Names chats" on (worker/src/agent/chat-title-prompt.ts), a second after the answer.
        { match: /^Name this chat:/, reply: (turn) => ({ text: `"Team Offsite Plan ${/offsite (\w+)/.exec(lastUserText(turn))?.[1] ?? ''}."`, latency: { timeToFirstTokenMs: 1000 } }) },
        { match: /^wide/i, reply: [{ toolCalls: [{ name: 'web', input: { url: `${loopback.url}/${LONG_PATH}` } }] }, { text: CODE_ANSWER }] },
        { match: /^joke/i, reply: () => ({ text: `Joke number ${++answerCount}` }) },
        { match: /^make a page/i, reply: () => ({ text: pageAnswer(loopback.url) }) },
        { match: /^math/i, reply: { text: MATH_ANSWER } },
        { match: /^read aloud/i, reply: { text: READ_ANSWER } },
        { match: /^diagram/i, reply: { text: DIAGRAM_ANSWER } },
        { match: /^background/i, reply: { text: 'Done in the background.', latency: { timeToFirstTokenMs: 800, interTokenMs: 10 } } },
        { match: /^tall/i, reply: { text: Array.from({ length: 80 }, (_, index) => `Line ${index + 1} of a long answer.`).join('\n\n') } },
        // A question with files: the model says what reached it (the image's type and size, the text file's words).
        {
          match: /look at these/i,
          reply: (turn) => ({
            text: `Images: ${lastUserMessageImages(turn).map((image) => ('url' in image ? image.url : `${image.mediaType} ${image.bytes} bytes`)).join(', ')}. Text: ${messageText(turn.messages.findLast((message) => message.role === 'user')!).replace(/\n/g, ' / ')}`,
          }),
        },
        { match: /^slow/i, reply: { text: SLOW_WORDS, latency: { timeToFirstTokenMs: 200, interTokenMs: 80 } } },
        { match: /^broken key/i, reply: { error: { status: 401, message: 'Incorrect API key provided: sk-fake***' } } },
        { match: /^missing page/i, reply: [{ toolCalls: [{ name: 'web', input: { url: `${loopback.url}/missing` } }] }, { text: 'The page is missing.' }] },
        { match: /^loop/i, reply: (turn) => (turn.tools?.length ? { toolCalls: [{ name: 'web', input: { url: `${loopback.url}/loop` } }] } : { text: 'Here is what I found.' }) },
      ], (turn) => ({ text: `You said: ${messageText(turn.messages.at(-1)!)}` }))(request);
    },
  });
  stack = await startStack();
  const headers = await logInByApi(stack);
  await createFakeModel(stack, headers, llm, 'Scripted demo model with a long name');
  await createByApi(stack, headers, '/api/agent-tools', { name: 'Web', slug: 'web', type: 'fetch' });

  browser = await launchBrowser();
  page = browser.page;
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  await page.setViewportSize({ width: 1280, height: 900 });
  page.on('console', (message) => { if (process.env.DEBUG_CHAT) console.log('[browser]', message.type(), message.text()); });
  page.on('pageerror', (error) => console.log('[pageerror]', error.message));
  page.on('request', (request) => { if (request.url().includes('/api/')) eventLog.push(`${new Date().toISOString().slice(17, 23)} > ${request.method()} ${request.url().replace(stack.url, '')}`); });
  page.on('requestfinished', (request) => { if (request.url().includes('/api/')) eventLog.push(`${new Date().toISOString().slice(17, 23)} < ${request.method()} ${request.url().replace(stack.url, '')}`); });
  await logInByBrowser(page, stack);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await llm?.close();
  await loopback?.close();
});

async function pageWidth(): Promise<{ scroll: number; viewport: number }> {
  return page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, viewport: window.innerWidth }));
}

async function expectNoHorizontalOverflow() {
  const { scroll, viewport } = await pageWidth();
  expect(scroll, `page is ${scroll} px wide in a ${viewport} px viewport`).toBeLessThanOrEqual(viewport);
}

async function expectInViewport(selector: ReturnType<Page['getByTestId']>) {
  const box = await selector.boundingBox();
  const { viewport } = await pageWidth();
  expect(box).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(viewport);
}

async function newChat(first: string) {
  await page.goto(`${stack.url}/chat`);
  await page.getByTestId('message-input').fill(first);
  await page.getByTestId('message-input').press('Enter');
  await page.waitForURL(/\/chat\/[^/]+$/);
}

/** A chat row's action, from its ⋯ menu (which opens whole inside the window). */
async function chooseRowAction(row: ReturnType<Page['locator']>, action: string) {
  await row.getByTestId('session-menu').click();
  await expectInViewport(row.getByTestId('session-menu-items'));
  await row.getByTestId(action).click();
}

async function clipboard(): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

/** Opens the sessions drawer on a phone (the sidebar is always there on a desktop). */
async function showSessions(viewport: (typeof VIEWPORTS)[number]) {
  if (viewport.width < 700) {
    expect(await page.getByTestId('sessions-sidebar').isVisible()).toBe(false);
    await page.getByTestId('sessions-drawer-toggle').click();
  }
  await page.getByTestId('session-search').waitFor({ state: 'visible' });
}

describe.each(VIEWPORTS)('chat at $width px', (viewport) => {
  const tag = viewport.name;

  beforeAll(async () => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
  });

  it('keeps a 5,000-character tool input and result and a 3,000-character code line inside the page; the pill and duration stay visible; code is highlighted and scrolls in its block', async () => {
    await newChat(`wide ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const card = lastAssistant(page).getByTestId('tool-card');
    await card.getByTestId('tool-status').filter({ hasText: 'Succeeded' }).waitFor();
    expect(await card.getByTestId('tool-input').textContent()).toContain(LONG_PATH);
    expect(await card.getByTestId('tool-result-text').textContent()).toContain(LONG_BODY);
    await expectNoHorizontalOverflow();
    await expectInViewport(card.getByTestId('tool-status'));
    await expectInViewport(card.getByTestId('tool-duration'));

    const block = lastAssistant(page).getByTestId('markdown-text').last().locator('.code-block pre');
    await block.locator('.hljs-keyword').first().waitFor();
    expect(await block.locator('.hljs-keyword').first().textContent()).toBe('const');
    expect(await block.locator('.hljs-title.function_').first().textContent()).toBe('greet');
    const scroll = await block.evaluate((element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }));
    expect(scroll.scrollWidth).toBeGreaterThan(scroll.clientWidth * 2);
    await expectNoHorizontalOverflow();

    // Light and dark: the keyword colour follows the colour scheme.
    const keyword = block.locator('.hljs-keyword').first();
    const light = await keyword.evaluate((element) => getComputedStyle(element).color);
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await keyword.evaluate((element) => getComputedStyle(element).color);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(dark).not.toBe(light);

    // Copy on a code block puts exactly the code on the clipboard.
    await lastAssistant(page).locator('[data-copy-code]').click();
    expect(await clipboard()).toBe(`${LONG_CODE_LINE}\nfunction greet(name) {\n  return 'hi ' + name;\n}`);
    await lastAssistant(page).locator('[data-copy-code]').filter({ hasText: 'Copied' }).waitFor();

    // Reload: the stored answer renders the same way.
    await page.reload();
    await waitForRunStatus(page, 'succeeded');
    await lastAssistant(page).locator('.hljs-keyword').first().waitFor();
    await expectNoHorizontalOverflow();

    if (SCREENSHOTS && tag === 'desktop') {
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: new URL('chat-desktop.png', SCREENSHOT_DIR).pathname });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: new URL('chat-dark.png', SCREENSHOT_DIR).pathname });
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('shows the whole model name in the dropdown (the default one as "Default (name)"), and on a phone a two-row header with every section on screen, a compact composer and sessions in a drawer', async () => {
    await page.goto(`${stack.url}/chat`);
    const select = page.getByTestId('model-select');
    if (viewport.width < 700) {
      expect(await select.isVisible()).toBe(false);
      await page.getByTestId('composer-options-toggle').click();
    }
    /** The closed select shows its whole selected text (none of it cut off). */
    const expectSelectedTextFits = async () => {
      const fits = await select.evaluate((element: HTMLSelectElement) => {
        const probe = document.createElement('span');
        probe.style.font = getComputedStyle(element).font;
        probe.style.position = 'absolute';
        probe.style.whiteSpace = 'nowrap';
        probe.textContent = element.selectedOptions[0]!.text;
        document.body.append(probe);
        const needed = probe.getBoundingClientRect().width;
        probe.remove();
        return { needed, available: element.clientWidth - 24 };
      });
      expect(fits.available).toBeGreaterThanOrEqual(fits.needed);
    };
    await select.selectOption({ label: 'Scripted demo model with a long name' });
    await expectSelectedTextFits();
    // "Default" names the model it means: the only model is the default one.
    await select.selectOption({ value: '' });
    expect(await select.evaluate((element: HTMLSelectElement) => element.selectedOptions[0]!.text)).toBe('Default (Scripted demo model with a long name)');
    await expectSelectedTextFits();
    await expectNoHorizontalOverflow();

    if (viewport.width < 700) {
      await page.getByTestId('composer-options-toggle').click();
      // Two short rows: the account, then every section (none scrolled out of sight).
      const header = await page.locator('header.topbar').boundingBox();
      expect(header!.height).toBeLessThan(96);
      for (const section of await page.getByTestId('main-nav').locator('a').all()) {
        const box = await section.boundingBox();
        expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
      }
      await newChat(`phone layout ${tag}`);
      await waitForRunStatus(page, 'succeeded');
      const composer = await page.locator('form.composer').boundingBox();
      expect(composer!.height).toBeLessThan(viewport.height * 0.2);
      expect(await page.getByTestId('sessions-sidebar').isVisible()).toBe(false);
      await page.getByTestId('sessions-drawer-toggle').click();
      await page.getByTestId('session-link').first().waitFor({ state: 'visible' });
      await expectNoHorizontalOverflow();
      if (SCREENSHOTS) await page.screenshot({ path: new URL('chat-mobile-drawer.png', SCREENSHOT_DIR).pathname });
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByTestId('sessions-sidebar').isVisible()).toBe(false);
      if (SCREENSHOTS) {
        await page.goto(`${stack.url}/chat`);
        await newChat(`wide ${tag} screenshot`);
        await waitForRunStatus(page, 'succeeded');
        await page.screenshot({ path: new URL('chat-mobile.png', SCREENSHOT_DIR).pathname });
      }
    }
  });

  it('renames, searches (English stem, 会议纪要 inside a sentence) with highlighted matches, and deletes sessions', async () => {
    await newChat(`Quarterly planning meetings ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    await sendMessage(page, `本周会议纪要：讨论了项目进度 ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const sessionUrl = page.url();
    const sessionId = sessionUrl.split('/').at(-1)!;

    await showSessions(viewport);
    const row = page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);
    expect(await row.getByTestId('session-link').textContent()).toContain(`Quarterly planning meetings ${tag}`);
    await chooseRowAction(row, 'rename-session');
    await row.getByTestId('rename-input').fill(`Planning ${tag} renamed`);
    await row.getByTestId('rename-input').press('Enter');
    await row.getByTestId('session-link').filter({ hasText: `Planning ${tag} renamed` }).waitFor();
    await expectNoHorizontalOverflow();

    await page.getByTestId('session-search').fill('meeting');
    await page.getByTestId('search-hit').first().waitFor();
    const englishHit = page.getByTestId('search-hit').filter({ hasText: `Planning ${tag} renamed` });
    await englishHit.waitFor();
    expect(await englishHit.locator('mark').first().textContent()).toBe('meetings');

    await page.getByTestId('session-search').fill('会议纪要');
    const cjkHit = page.getByTestId('search-hit').filter({ hasText: `Planning ${tag} renamed` });
    await cjkHit.getByTestId('search-snippet').locator('mark', { hasText: '会议纪要' }).waitFor();
    expect(await cjkHit.getByTestId('search-snippet').locator('mark').allTextContents()).toEqual(['会议纪要']);
    await page.getByTestId('session-search').fill('nothing-matches-this');
    await page.getByTestId('search-empty').waitFor();
    await page.getByTestId('session-search').fill('');

    await chooseRowAction(row, 'delete-session');
    await row.getByTestId('delete-confirm').click();
    await page.waitForURL(`${stack.url}/chat`);
    await expect.poll(() => page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`).count()).toBe(0);
    await page.goto(sessionUrl);
    expect(await page.getByTestId('error-panel').textContent()).toMatch(/not found|404/i);
  });

  it('starts a temporary chat: a banner says so, the answer streams, the sidebar and search never list it, a reload keeps the banner, it has no Share, Fork or thumbs until it is kept', async () => {
    const question = `Temporary whisper ${tag}`;
    await page.goto(`${stack.url}/chat`);
    const toggle = page.getByTestId('temporary-chat-toggle');
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    expect(await page.getByTestId('temporary-chat-explain').count()).toBe(0);
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('temporary-chat-explain').textContent()).toContain('deleted after 24 hours');
    await expectInViewport(toggle);
    await page.getByTestId('message-input').fill(question);
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    const sessionId = page.url().split('/').at(-1)!;

    const banner = page.getByTestId('temporary-chat-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('Temporary chat — not saved to your chats');
    await expectInViewport(banner);
    await waitForRunStatus(page, 'succeeded');
    expect((await lastAssistant(page).getByTestId('markdown-text').textContent())!.trim()).toBe(`You said: ${question}`);
    expect(await page.getByTestId('chat-share').count()).toBe(0);
    expect(await page.getByTestId('fork-message').count()).toBe(0);
    expect(await page.getByTestId('feedback-up').count()).toBe(0);
    expect(await page.getByTestId('chat-export').count()).toBe(1);
    await expectNoHorizontalOverflow();

    await showSessions(viewport);
    // The layout loads the list before the page shows: this chat is not in it.
    expect(await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`).count()).toBe(0);
    await page.getByTestId('session-search').fill(`whisper ${tag}`);
    await page.getByTestId('search-empty').waitFor();
    await page.getByTestId('session-search').fill('');
    if (viewport.width < 700) {
      await page.keyboard.press('Escape');
      await page.getByTestId('sessions-sidebar').waitFor({ state: 'hidden' });
    }

    // A second question stays in it, and a reload still says it is temporary.
    await sendMessage(page, `And again ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    await page.reload();
    await page.getByTestId('temporary-chat-banner').waitFor();
    await expect.poll(() => page.getByTestId('user-message').locator('.text').allInnerTexts()).toEqual([question, `And again ${tag}`]);
    expect(await page.getByTestId('chat-share').count()).toBe(0);
    expect(await page.getByTestId('fork-message').count()).toBe(0);
    expect(await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`).count()).toBe(0);

    // Kept after all: the banner goes, Share, Fork and the thumbs come, the list has it; a reload agrees.
    await page.getByTestId('temporary-chat-keep').click();
    await page.getByTestId('temporary-chat-banner').waitFor({ state: 'detached' });
    await page.getByTestId('chat-share').waitFor({ state: 'attached' });
    expect(await page.getByTestId('fork-message').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('feedback-up').count()).toBeGreaterThan(0);
    await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`).waitFor({ state: 'attached' });
    await page.reload();
    await page.getByTestId('chat-share').waitFor({ state: 'attached' });
    expect(await page.getByTestId('temporary-chat-banner').count()).toBe(0);

    // Loading the new-chat page afresh starts a regular chat again.
    await page.goto(`${stack.url}/chat`);
    expect(await page.getByTestId('temporary-chat-toggle').getAttribute('aria-pressed')).toBe('false');
  });

  it('archives a chat out of the list (search marks it archived); Account → Archived chats opens it with a note, and Restore lists it again', async () => {
    await newChat(`archive ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const sessionId = page.url().split('/').at(-1)!;
    await showSessions(viewport);
    const row = () => page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);
    await chooseRowAction(row(), 'archive-session');
    await page.waitForURL(`${stack.url}/chat`);
    await expect.poll(() => row().count()).toBe(0);
    // Search still finds it by its words, and says it is archived.
    if (!(await page.getByTestId('session-search').isVisible())) await showSessions(viewport);
    await page.getByTestId('session-search').fill(`archive ${tag}`);
    await page.getByTestId('search-hit').filter({ hasText: `Archive ${tag}` }).getByTestId('search-archived').waitFor();
    await page.getByTestId('session-search').fill('');

    await page.goto(`${stack.url}/account/archived`);
    const archived = page.getByTestId('archived-row').filter({ hasText: `Archive ${tag}` });
    await archived.getByTestId('archived-link').click();
    await page.waitForURL(`${stack.url}/chat/${sessionId}`);
    await page.getByTestId('archived-note').waitFor();
    expect(await lastAssistant(page).getByTestId('markdown-text').innerText()).toBe(`You said: archive ${tag}`);
    await expectNoHorizontalOverflow();
    await page.getByTestId('archived-restore').click();
    await page.getByTestId('archived-note').waitFor({ state: 'detached' });
    await showSessions(viewport);
    await row().waitFor();
    await page.goto(`${stack.url}/account/archived`);
    await page.getByTestId('archived-table').or(page.getByTestId('archived-empty')).first().waitFor();
    expect(await archived.count()).toBe(0);
  });

  it('files a chat in a folder: the folder lists it (the recent list no longer does), is renamed, and once deleted sends it back', async () => {
    await newChat(`filed ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const sessionId = page.url().split('/').at(-1)!;
    await showSessions(viewport);
    await page.getByTestId('new-folder').click();
    await page.getByTestId('folder-name').fill(`Trips ${tag}`);
    await page.getByTestId('folder-save').click();
    const folder = page.getByTestId('folder').filter({ hasText: `Trips ${tag}` });
    await folder.waitFor();
    expect(await folder.getByTestId('folder-count').textContent()).toBe('0');

    const recentRow = page.getByTestId('session-list').locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);
    await chooseRowAction(recentRow, 'move-session');
    await recentRow.getByTestId('move-select').selectOption({ label: `Trips ${tag}` });
    await recentRow.getByTestId('move-save').click();
    await expect.poll(() => recentRow.count()).toBe(0);
    await expect.poll(() => folder.getByTestId('folder-count').textContent()).toBe('1');
    await folder.getByTestId('folder-toggle').click();
    expect(await folder.getByTestId('folder-toggle').getAttribute('aria-expanded')).toBe('true');
    const filedRow = folder.getByTestId('folder-chats').locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);
    await filedRow.waitFor();
    await expectNoHorizontalOverflow();

    await folder.getByTestId('folder-rename').click();
    await page.getByTestId('folder-name').fill(`Travel ${tag}`);
    await page.getByTestId('folder-save').click();
    const renamed = page.getByTestId('folder').filter({ hasText: `Travel ${tag}` });
    await renamed.getByTestId('folder-chats').locator(`[data-session-id="${sessionId}"]`).first().waitFor();

    await renamed.getByTestId('folder-delete').click();
    await renamed.getByTestId('folder-delete-confirm').click();
    await expect.poll(() => page.getByTestId('folder').filter({ hasText: `Travel ${tag}` }).count()).toBe(0);
    await recentRow.waitFor();
  });

  it('regenerates the last answer with a ‹ 1/2 › switcher, edits a question on a new branch with the old one reachable, and copies a message', async () => {
    await newChat(`joke ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const first = (await lastAssistant(page).getByTestId('markdown-text').textContent())!.trim();
    expect(first).toMatch(/^Joke number \d+$/);

    await page.getByTestId('assistant-actions').last().getByTestId('copy-message').click();
    expect(await clipboard()).toBe(first);

    await page.getByTestId('assistant-actions').last().getByTestId('regenerate').click();
    await expect.poll(async () => (await lastAssistant(page).getByTestId('markdown-text').textContent())?.trim(), { timeout: 30_000 }).not.toBe(first);
    await waitForRunStatus(page, 'succeeded');
    const second = (await lastAssistant(page).getByTestId('markdown-text').textContent())!.trim();
    expect(second).toMatch(/^Joke number \d+$/);
    const switcher = page.getByTestId('assistant-actions').last().getByTestId('version-switcher');
    await switcher.getByTestId('version-label').filter({ hasText: '2/2' }).waitFor();
    expect(await page.getByTestId('user-message').count()).toBe(1);
    await switcher.getByTestId('version-previous').click();
    await switcher.getByTestId('version-label').filter({ hasText: '1/2' }).waitFor();
    expect((await lastAssistant(page).getByTestId('markdown-text').textContent())!.trim()).toBe(first);
    await page.reload();
    await page.getByTestId('version-label').filter({ hasText: '1/2' }).waitFor();
    await expectNoHorizontalOverflow();

    // Edit a question: the new branch's answer is built from the edited text only.
    await page.getByTestId('version-next').click();
    await page.getByTestId('version-label').filter({ hasText: '2/2' }).waitFor();
    await sendMessage(page, `tell me more ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    expect((await lastAssistant(page).getByTestId('markdown-text').textContent())!.trim()).toBe(`You said: tell me more ${tag}`);
    // A just-sent question gets its actions once the page has read it back: until then the last
    // actions on the page are the first question's (CI once edited that one instead).
    await expect.poll(async () => (await page.getByTestId('user-actions').count()) === (await page.getByTestId('user-message').count()), { timeout: 10_000 }).toBe(true);
    await page.getByTestId('user-actions').last().getByTestId('edit-message').click();
    await page.getByTestId('edit-input').fill(`tell me less ${tag}`);
    const before = requests.length;
    await page.getByTestId('edit-send').click();
    await expect.poll(async () => (await lastAssistant(page).getByTestId('markdown-text').textContent())?.trim(), { timeout: 30_000 }).toBe(`You said: tell me less ${tag}`);
    const context = requests.slice(before).map((request) => request.messages.map((message) => messageText(message)).join(' | '));
    expect(context.some((text) => text.includes(`tell me less ${tag}`))).toBe(true);
    expect(context.some((text) => text.includes(`tell me more ${tag}`))).toBe(false);
    // The first answer is still the second's version in the edited branch's context.
    expect(context.some((text) => text.includes(second))).toBe(true);

    const questionSwitcher = page.getByTestId('user-actions').last().getByTestId('version-switcher');
    await questionSwitcher.getByTestId('version-label').filter({ hasText: '2/2' }).waitFor();
    await questionSwitcher.getByTestId('version-previous').click();
    await page.getByTestId('user-message').filter({ hasText: `tell me more ${tag}` }).waitFor();
    expect((await lastAssistant(page).getByTestId('markdown-text').textContent())!.trim()).toBe(`You said: tell me more ${tag}`);

    await page.getByTestId('user-actions').last().getByTestId('copy-message').click();
    expect(await clipboard()).toBe(`tell me more ${tag}`);
    await expectNoHorizontalOverflow();
  });

  it("edits an answer: the correction is a new version marked Edited, the model's words a version away, and the next question's model reads the correction", async () => {
    await newChat(`capital ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const original = (await lastAssistant(page).getByTestId('markdown-text').textContent())!.trim();
    const actions = () => page.getByTestId('assistant-actions').last();
    await actions().getByTestId('edit-answer').click();
    const box = page.getByTestId('answer-edit-input');
    expect(await box.inputValue()).toBe(original);
    await expectNoHorizontalOverflow();
    // Esc leaves it as it was.
    await box.press('Escape');
    await page.getByTestId('answer-edit-form').waitFor({ state: 'detached' });
    await actions().getByTestId('edit-answer').click();
    await page.getByTestId('answer-edit-input').fill(`Corrected **answer** ${tag}`);
    await page.getByTestId('answer-edit-save').click();
    await page.getByTestId('answer-edit-form').waitFor({ state: 'detached' });
    await expect.poll(async () => (await lastAssistant(page).getByTestId('markdown-text').textContent())?.trim()).toBe(`Corrected answer ${tag}`);
    expect(await lastAssistant(page).locator('strong').textContent()).toBe('answer');
    await page.getByTestId('answer-edited').waitFor();
    await actions().getByTestId('version-label').filter({ hasText: '2/2' }).waitFor();

    // The model's words are one switch away, and the correction again after a reload.
    await actions().getByTestId('version-previous').click();
    await actions().getByTestId('version-label').filter({ hasText: '1/2' }).waitFor();
    expect((await lastAssistant(page).getByTestId('markdown-text').textContent())!.trim()).toBe(original);
    expect(await page.getByTestId('answer-edited').count()).toBe(0);
    await actions().getByTestId('version-next').click();
    await page.reload();
    await page.getByTestId('answer-edited').waitFor();

    const before = requests.length;
    await sendMessage(page, `and why ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const context = requests.slice(before).map((request) => request.messages.map((message) => messageText(message)).join(' | '));
    expect(context.some((text) => text.includes(`Corrected **answer** ${tag}`))).toBe(true);
    expect(context.some((text) => text.includes(original))).toBe(false);
  });

  it('attaches an image, a text file and a PDF that the model reads (picked, or resent by an edit), shows them on the question, and refuses too big a file before uploading', async () => {
    await page.goto(`${stack.url}/chat`);
    const attach = page.getByTestId('attach-input');
    await attach.setInputFiles([
      { name: 'trip.png', mimeType: 'image/png', buffer: PNG },
      { name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('Lyon is 465 km away') },
      { name: 'guide.pdf', mimeType: 'application/pdf', buffer: Buffer.from(pdfWithPages(['Lyon: old town'])) },
      { name: 'spare.txt', mimeType: 'text/plain', buffer: Buffer.from('not this one') },
    ]);
    await expect
      .poll(() => page.getByTestId('attachment').allInnerTexts())
      .toEqual([expect.stringContaining('trip.png'), expect.stringContaining('notes.md'), expect.stringContaining('guide.pdf'), expect.stringContaining('spare.txt')]);
    await page.getByTestId('attachment').filter({ hasText: 'spare.txt' }).getByTestId('attachment-remove').click();
    await attach.setInputFiles([{ name: 'huge.log', mimeType: 'text/plain', buffer: Buffer.alloc(600 * 1024, 'a') }]);
    await page.getByTestId('attach-error').filter({ hasText: 'huge.log is too big' }).waitFor();
    expect(await page.getByTestId('attachment').count()).toBe(3);
    await expectNoHorizontalOverflow();

    await page.getByTestId('message-input').fill(`look at these ${tag}`);
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');
    const reply = `Images: image/png ${PNG.length} bytes. Text: Attached file "trip.png" (image/png): / Attached file "notes.md" (text/markdown): / Lyon is 465 km away / Attached file "guide.pdf" (application/pdf, its text): / [Page 1] / Lyon: old town / look at these ${tag}`;
    expect((await lastAssistant(page).getByTestId('markdown-text').textContent())!.trim()).toBe(reply);
    expect(await page.getByTestId('attachment').count()).toBe(0);

    // The question shows its files: the picture itself, and the text file as a download.
    const question = page.getByTestId('user-message').last();
    await expect.poll(() => question.getByTestId('message-image').locator('img').evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(1);
    expect(await question.getByTestId('message-file').allInnerTexts()).toEqual([expect.stringContaining('notes.md'), expect.stringContaining('guide.pdf')]);
    const file = question.getByTestId('message-file').first();
    const download = await page.request.get(new URL((await file.getAttribute('href'))!, stack.url).href);
    expect(await download.text()).toBe('Lyon is 465 km away');
    await page.reload();
    await question.getByTestId('message-image').waitFor();
    await expectNoHorizontalOverflow();

    // An edit sends the question's files again with its new words.
    await page.getByTestId('user-actions').last().getByTestId('edit-message').click();
    expect(await page.getByTestId('edit-files').textContent()).toContain('trip.png, notes.md, guide.pdf');
    await page.getByTestId('edit-input').fill(`look at these again ${tag}`);
    await page.getByTestId('edit-send').click();
    await expect.poll(async () => (await lastAssistant(page).getByTestId('markdown-text').textContent())?.trim(), { timeout: 30_000 }).toBe(reply.replace('look at these', 'look at these again'));
    await page.getByTestId('user-message').last().getByTestId('message-image').waitFor();

    // A model an admin marked as not seeing images: the composer says so and will not send one.
    const blind = await page.request.post(`${stack.url}/api/models`, { data: { name: `Text-only ${tag}`, baseUrl: llm.url, modelId: 'fake-model', supportsImages: false } });
    expect(blind.status()).toBe(201);
    const blindId = ((await blind.json()) as { id: string }).id;
    await page.reload();
    if (viewport.width < 700) await page.getByTestId('composer-options-toggle').click();
    await page.getByTestId('model-select').selectOption(blindId);
    await page.getByTestId('attach-input').setInputFiles([{ name: 'photo.png', mimeType: 'image/png', buffer: PNG }]);
    await page.getByTestId('attach-no-vision').filter({ hasText: `Text-only ${tag} cannot see images` }).waitFor();
    expect(await page.getByTestId('send-button').isDisabled()).toBe(true);
    await page.getByTestId('attachment-remove').click();
    expect(await page.getByTestId('attach-no-vision').count()).toBe(0);
    await page.getByTestId('model-select').selectOption('');
    expect((await page.request.delete(`${stack.url}/api/models/${blindId}`)).status()).toBe(204);
  });

  it('sends the temperature and max tokens set under System prompt & sampling, and leaves them to the model once cleared', async () => {
    await page.goto(`${stack.url}/chat`);
    if (viewport.width < 700) await page.getByTestId('composer-options-toggle').click();
    await page.getByTestId('system-prompt-toggle').click();
    await page.getByTestId('temperature').fill('0.3');
    await page.getByTestId('max-tokens').fill('50');
    const before = requests.length;
    await page.getByTestId('message-input').fill(`sampling ${tag}`);
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');
    expect(requests.slice(before).at(-1)).toMatchObject({ temperature: 0.3, max_tokens: 50 });
    if (viewport.width < 700 && !(await page.getByTestId('temperature').isVisible())) await page.getByTestId('composer-options-toggle').click();
    if (!(await page.getByTestId('temperature').isVisible())) await page.getByTestId('system-prompt-toggle').click();
    await page.getByTestId('temperature').fill('');
    await page.getByTestId('max-tokens').fill('');
    const cleared = requests.length;
    await sendMessage(page, `sampling cleared ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    for (const key of ['temperature', 'max_tokens']) expect(requests.slice(cleared).at(-1)).not.toHaveProperty(key);
  });

  it("shows an answer's details on request: the model, its tokens in and out, how long it took, its speed, its steps", async () => {
    await newChat(`details ${tag}`);
    await sendMessage(page, 'missing page');
    await waitForRunStatus(page, 'succeeded');
    const actions = page.getByTestId('assistant-actions').last();
    await actions.getByTestId('answer-details-toggle').waitFor();
    expect(await actions.getByTestId('answer-details').count()).toBe(0);
    await actions.getByTestId('answer-details-toggle').click();
    expect(await actions.getByTestId('answer-details-toggle').getAttribute('aria-expanded')).toBe('true');
    // Two steps: the tool call, then the answer; the fake model counts the tokens it streamed.
    expect(await actions.getByTestId('answer-details').textContent()).toMatch(/^Scripted demo model with a long name · [\d,]+ in · [1-9]\d* out tokens · \d+(\.\d)? m?s · [\d,.]+ tokens\/s · 2 steps$/);
    await expectInViewport(actions.getByTestId('answer-details'));
    await actions.getByTestId('answer-details-toggle').click();
    expect(await actions.getByTestId('answer-details').count()).toBe(0);
  });

  it('rates an answer 👎 with a comment that an admin reads on the Feedback page, linked to its run; the same thumb again takes it back', async () => {
    await newChat(`rate ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const actions = page.getByTestId('assistant-actions').last();
    await actions.getByTestId('feedback-down').click();
    await actions.getByTestId('feedback-comment').fill(`Too short (${tag})`);
    await expectInViewport(actions.getByTestId('feedback-comment-save'));
    await actions.getByTestId('feedback-comment-save').click();
    await actions.getByTestId('feedback-form').waitFor({ state: 'detached' });
    expect(await actions.getByTestId('feedback-down').getAttribute('aria-pressed')).toBe('true');
    await expectNoHorizontalOverflow();

    // Kept: a reload shows the rating and offers to edit the comment.
    await page.reload();
    await expect.poll(() => page.getByTestId('assistant-actions').last().getByTestId('feedback-down').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('assistant-actions').last().getByTestId('feedback-comment-edit').textContent()).toBe('Edit comment');
    const chatUrl = page.url();

    await page.goto(`${stack.url}/admin`);
    await page.getByTestId('admin-entry-feedback').click();
    await page.waitForURL(`${stack.url}/admin/feedback`);
    await page.getByTestId('feedback-tabs-down').click();
    await page.waitForURL(`${stack.url}/admin/feedback?rating=down`);
    const item = page.getByTestId('feedback-item').filter({ hasText: `Too short (${tag})` });
    await item.waitFor();
    expect(await item.getAttribute('data-rating')).toBe('down');
    expect(await item.getByTestId('feedback-item-excerpt').textContent()).toContain(`You said: rate ${tag}`);
    await expectNoHorizontalOverflow();

    // Counted by agent and model; "Show these" narrows the list to them, keeping the tab.
    const summaryRow = page.getByTestId('feedback-summary-row').filter({ hasText: 'Scripted demo model with a long name' });
    expect(Number(await summaryRow.getByTestId('feedback-summary-down').textContent())).toBeGreaterThanOrEqual(1);
    await summaryRow.getByTestId('feedback-summary-show').click();
    await page.waitForURL(/\/admin\/feedback\?rating=down&agentId=agt_[^&]+&modelId=mdl_/);
    expect(await page.getByTestId('feedback-filtered').textContent()).toContain('on Scripted demo model with a long name');
    await item.waitFor();
    await page.getByTestId('feedback-filter-clear').click();
    await page.waitForURL(`${stack.url}/admin/feedback?rating=down`);
    await item.waitFor();
    // By day: today's ratings hold it, yesterday's do not; a range backwards cannot be applied.
    const day = (offset: number) => page.evaluate((days) => {
      const date = new Date();
      date.setDate(date.getDate() + days);
      return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
    }, offset);
    const [today, yesterday] = [await day(0), await day(-1)];
    await page.getByTestId('feedback-from').fill(yesterday);
    await page.getByTestId('feedback-to').fill(yesterday);
    await page.getByTestId('feedback-days-apply').click();
    await page.waitForURL(`${stack.url}/admin/feedback?rating=down&from=${yesterday}&to=${yesterday}`);
    await expect.poll(() => item.count()).toBe(0);
    await page.getByTestId('feedback-to').fill(today);
    await page.getByTestId('feedback-from').fill(today);
    await page.getByTestId('feedback-days-apply').click();
    await page.waitForURL(`${stack.url}/admin/feedback?rating=down&from=${today}&to=${today}`);
    await item.waitFor();
    expect(Number(await summaryRow.getByTestId('feedback-summary-down').textContent())).toBeGreaterThanOrEqual(1);
    await page.getByTestId('feedback-from').fill(await day(1));
    expect(await page.getByTestId('feedback-days-apply').isDisabled()).toBe(true);
    await page.getByTestId('feedback-days-clear').click();
    await page.waitForURL(`${stack.url}/admin/feedback?rating=down`);
    await item.waitFor();
    await item.getByTestId('feedback-item-run').click();
    await page.waitForURL(/\/admin\/runs\/run_/);

    await page.goto(chatUrl);
    const again = page.getByTestId('assistant-actions').last();
    await again.getByTestId('feedback-down').waitFor();
    await again.getByTestId('feedback-down').click();
    await expect.poll(() => again.getByTestId('feedback-down').getAttribute('aria-pressed')).toBe('false');
    await page.goto(`${stack.url}/admin/feedback?rating=down`);
    await page.getByTestId('feedback-tabs').waitFor();
    expect(await page.getByTestId('feedback-item').filter({ hasText: `Too short (${tag})` }).count()).toBe(0);
  });

  it('prints the conversation alone (Export → Print or save as PDF): no menus, composer or buttons, code wrapped onto the page', async () => {
    await newChat(`wide print ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    await page.evaluate(() => Object.assign(window, { printed: 0, print: () => ((window as unknown as { printed: number }).printed += 1) }));
    await page.getByTestId('chat-export-toggle').click();
    await page.getByTestId('chat-export-print').click();
    expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
    expect(await page.getByTestId('chat-export-print').isVisible()).toBe(false);

    await page.emulateMedia({ media: 'print' });
    try {
      for (const hidden of ['main-nav', 'sessions-sidebar', 'message-input', 'chat-export', 'assistant-actions', 'user-actions']) expect(await page.getByTestId(hidden).first().isVisible(), hidden).toBe(false);
      expect(await page.locator('button:visible').count()).toBe(0);
      expect(await page.getByTestId('session-title').isVisible()).toBe(true);
      const code = lastAssistant(page).locator('.code-block pre');
      expect(await code.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
      await expectNoHorizontalOverflow();
      // The PDF Chromium makes of it holds the conversation and nothing of the app around it.
      const { extractPdfText } = await import('../../shared/src/services/chat-files/pdf-text.ts');
      const pdf = await extractPdfText(new Uint8Array(await page.pdf({ format: 'A4' })));
      expect(pdf.ok).toBe(true);
      const text = pdf.ok ? pdf.text.replace(/\s+/g, ' ') : '';
      for (const shown of [`wide print ${tag}`, 'Here is the code:', 'function greet(name)', 'Done.']) expect(text).toContain(shown);
      for (const left of ['Message the agent', 'New chat', 'Log out', 'Regenerate']) expect(text).not.toContain(left);
    } finally {
      await page.emulateMedia({ media: 'screen' });
    }
  });

  it('exports the chat as a Markdown or JSON download named after its title, with the tool call and its outcome', async () => {
    await newChat(`export ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    await sendMessage(page, 'missing page');
    await waitForRunStatus(page, 'succeeded');
    await page.getByTestId('session-title').filter({ hasText: `Export ${tag}` }).waitFor({ state: 'attached' });

    async function download(format: 'markdown' | 'json'): Promise<{ name: string; text: string }> {
      await page.getByTestId('chat-export-toggle').click();
      await expectInViewport(page.getByTestId(`chat-export-${format}`));
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`chat-export-${format}`).click()]);
      const { readFile } = await import('node:fs/promises');
      return { name: file.suggestedFilename(), text: await readFile((await file.path())!, 'utf8') };
    }

    const markdown = await download('markdown');
    expect(markdown.name).toBe(`Export-${tag}.md`);
    const sections = markdown.text.split(/^## /m).slice(1).map((section) => section.replace(/^(You|Assistant) · [^\n]+\n\n/, '$1: ').trim());
    expect(sections[0]).toBe(`You: export ${tag}`);
    expect(sections[1]).toBe(`Assistant: You said: export ${tag}`);
    expect(sections[2]).toBe('You: missing page');
    expect(sections[3]).toMatch(/^Assistant: \*\*Tool call `web`\*\*: \w+[^]*Input:\n\n```json\n\{\n {2}"url": "http:\/\/127\.0\.0\.1:\d+\/missing"\n\}\n```[^]*The page is missing\.$/);
    expect(await page.getByTestId('chat-export-markdown').isVisible()).toBe(false);

    const json = JSON.parse((await download('json')).text) as { format: string; messages: { role: string }[] };
    expect(json.format).toBe('agentq.chat.v1');
    expect(json.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    await expectNoHorizontalOverflow();
  });

  it("imports a chat from its JSON export (the tool call's card and all) and a ChatGPT export's conversations; refuses a file that is not JSON", async () => {
    // The export of the chat the test above made (still open), downloaded as a user would.
    await page.getByTestId('session-title').filter({ hasText: `Export ${tag}` }).waitFor({ state: 'attached' });
    await page.getByTestId('chat-export-toggle').click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('chat-export-json').click()]);
    const { readFile } = await import('node:fs/promises');
    const exported = await readFile((await download.path())!);

    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('chat-import').scrollIntoViewIfNeeded();
    await expectInViewport(page.getByTestId('chat-import-choose'));
    await page.getByTestId('chat-import-file').setInputFiles({ name: download.suggestedFilename(), mimeType: 'application/json', buffer: exported });
    // One chat: it opens, as it was.
    await page.waitForURL(/\/chat\/cs_[^/]+$/);
    await page.getByTestId('session-title').filter({ hasText: `Export ${tag}` }).waitFor({ state: 'attached' });
    await expect.poll(() => page.getByTestId('user-message').locator('.text').allInnerTexts()).toEqual([`export ${tag}`, 'missing page']);
    const card = page.getByTestId('tool-card');
    expect(await card.getAttribute('data-tool-name')).toBe('web');
    await card.getByTestId('tool-toggle').click();
    expect(await card.getByTestId('tool-input').innerText()).toMatch(/"url": "http:\/\/127\.0\.0\.1:\d+\/missing"/);
    expect(await lastAssistant(page).getByTestId('markdown-text').innerText()).toBe('The page is missing.');
    await expectNoHorizontalOverflow();

    // ChatGPT's conversations.json: two conversations and an empty one.
    const node = (id: string, parent: string | null, role: string, text: string, time: number) => ({ id, parent, children: [], message: { id, author: { role }, create_time: time, content: { content_type: 'text', parts: [text] }, recipient: 'all', metadata: {} } });
    const conversation = (title: string, question: string, reply: string) => ({ title, create_time: 1_700_000_000, current_node: 'a', mapping: { q: node('q', null, 'user', question, 1_700_000_001), a: node('a', 'q', 'assistant', reply, 1_700_000_002) } });
    const chatgpt = [conversation(`Tea ${tag}`, 'Green or black?', 'Green.'), conversation(`Coffee ${tag}`, 'Espresso?', 'Yes.'), { title: 'Empty', mapping: {} }];
    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('chat-import-file').setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(chatgpt)) });
    const outcome = page.getByTestId('chat-import-outcome');
    await outcome.waitFor();
    expect(await outcome.innerText()).toMatch(/Chats imported: 2 of 3\.\s+Chats with nothing to import: 1\./);
    expect(await page.getByTestId('chat-import-link').allInnerTexts()).toEqual([`Tea ${tag}`, `Coffee ${tag}`]);
    await page.getByTestId('chat-import-link').filter({ hasText: `Coffee ${tag}` }).click();
    await page.waitForURL(/\/chat\/cs_[^/]+$/);
    await expect.poll(() => page.getByTestId('user-message').locator('.text').allInnerTexts()).toEqual(['Espresso?']);
    expect(await lastAssistant(page).getByTestId('markdown-text').innerText()).toBe('Yes.');

    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('chat-import-file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('just some notes') });
    expect(await page.getByTestId('chat-import-error').innerText()).toBe("notes.txt is not a JSON file. Choose agentq's JSON export or ChatGPT's conversations.json.");
  });

  it('shares a chat by link: another user reads it as it was shared, sees later messages (and their pictures) once the link is updated, saves a copy with them; a deleted link no longer opens', async () => {
    await newChat(`share ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    await page.getByTestId('session-title').filter({ hasText: `Share ${tag}` }).waitFor({ state: 'attached' });
    const sessionUrl = page.url();
    await page.getByTestId('chat-share').click();
    await page.getByTestId('share-create').click();
    const link = await page.getByTestId('share-link').inputValue();
    expect(link).toMatch(new RegExp(`^${stack.url}/shared/[A-Za-z0-9_-]{22}$`));
    await page.getByTestId('share-copy').click();
    expect(await clipboard()).toBe(link);
    expect(await page.getByTestId('share-state').innerText()).toMatch(/: 2 messages\.$/);
    await expectNoHorizontalOverflow();
    await page.getByTestId('modal-close').click();
    await page.getByTestId('attach-input').setInputFiles([{ name: 'view.png', mimeType: 'image/png', buffer: PNG }]);
    await sendMessage(page, `after sharing ${tag}`);
    await waitForRunStatus(page, 'succeeded');

    const reader = await launchBrowser();
    try {
      const readerPage = reader.page;
      await readerPage.setViewportSize({ width: viewport.width, height: viewport.height });
      const readerAccount = await stack.createUser();
      await logInByBrowser(readerPage, stack, readerAccount);
      const questions = () => readerPage.getByTestId('user-message').locator('.text').allInnerTexts();
      await readerPage.goto(link);
      expect(await readerPage.getByTestId('shared-title').innerText()).toBe(`Share ${tag}`);
      expect(await readerPage.getByTestId('shared-by').innerText()).toMatch(/^Shared by Administrator · /);
      expect(await questions()).toEqual([`share ${tag}`]);
      expect(await lastAssistant(readerPage).getByTestId('markdown-text').innerText()).toBe(`You said: share ${tag}`);
      await expectNoOverflowOn(readerPage, 'shared chat');

      // The owner brings the link up to date; the reader sees the later question.
      await page.getByTestId('chat-share').click();
      await page.getByTestId('share-update').click();
      await expect.poll(() => page.getByTestId('share-state').innerText()).toMatch(/: 4 messages\.$/);
      expect(await page.getByTestId('share-notice').innerText()).toBe('The link now shows the chat as it is.');
      expect(await page.getByTestId('share-link').inputValue()).toBe(link);
      await page.getByTestId('modal-close').click();
      await readerPage.reload();
      await expect.poll(questions).toEqual([`share ${tag}`, `after sharing ${tag}`]);
      // The question's picture is the reader's to see, as shared (loaded, not a broken image).
      const picture = () => readerPage.getByTestId('user-message').last().getByTestId('message-image').locator('img');
      await expect.poll(() => picture().evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(1);
      expect(await picture().getAttribute('src')).toMatch(/^\/api\/shared\/[A-Za-z0-9_-]{22}\/files\/fil_/);

      await readerPage.getByTestId('shared-save-copy').click();
      await readerPage.waitForURL(/\/chat\/cs_[^/]+$/);
      expect(readerPage.url()).not.toBe(sessionUrl);
      await expect.poll(questions).toEqual([`share ${tag}`, `after sharing ${tag}`]);
      await readerPage.getByTestId('session-title').filter({ hasText: `Share ${tag}` }).waitFor({ state: 'attached' });
      // The copy has the picture as a file of its own chat.
      await expect.poll(() => picture().evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(1);
      expect(await picture().getAttribute('src')).toMatch(/^\/api\/sessions\/cs_[^/]+\/files\/fil_/);

      // The owner's list of links; deleting one there takes it down.
      await page.goto(`${stack.url}/account/shared`);
      const row = page.getByTestId('share-row').filter({ hasText: `Share ${tag}` });
      expect(await row.getByTestId('share-open-chat').getAttribute('href')).toBe(new URL(sessionUrl).pathname);
      await row.getByTestId('share-delete').click();
      await row.getByTestId('share-delete-confirm').click();
      await page.getByTestId('shares-notice').filter({ hasText: `Deleted the link to “Share ${tag}”.` }).waitFor();
      await readerPage.goto(link);
      await readerPage.getByTestId('error-panel').waitFor();
      expect(await readerPage.getByTestId('error-message').innerText()).toMatch(/not found/i);
    } finally {
      await reader.close();
    }
  });

  it('names a chat with the title its model gives when the model has "Names chats" on: the header and the sidebar row show it without a reload, and after one', async () => {
    const headers = await logInByApi(stack);
    const models = (await (await fetch(`${stack.url}/api/models`, { headers })).json()) as { items: { id: string; name: string }[] };
    const model = models.items.find((candidate) => candidate.name === 'Scripted demo model with a long name')!;
    const setNamesChats = async (namesChats: boolean) => {
      const response = await fetch(`${stack.url}/api/models/${model.id}`, { method: 'PUT', headers, body: JSON.stringify({ namesChats }) });
      expect(response.status, await response.text()).toBe(200);
    };
    await setNamesChats(true);
    try {
      const title = `Team Offsite Plan ${tag}`;
      const header = page.getByTestId(viewport.width < 700 ? 'mobile-title' : 'session-title');
      await page.goto(`${stack.url}/chat`);
      // Gone if the page reloads.
      await page.evaluate(() => Object.assign(window, { sameDocument: true }));
      await page.getByTestId('message-input').fill(`plan the team offsite ${tag}`);
      await page.getByTestId('message-input').press('Enter');
      await page.waitForURL(/\/chat\/[^/]+$/);
      const sessionId = page.url().split('/').at(-1)!;
      const row = page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);
      await expect.poll(() => header.textContent(), { timeout: 15_000 }).toBe(title);
      await waitForRunStatus(page, 'succeeded');
      await showSessions(viewport);
      await expect.poll(() => row.getByTestId('session-link').textContent()).toContain(title);
      expect(await page.evaluate(() => (window as { sameDocument?: boolean }).sameDocument)).toBe(true);
      if (viewport.width < 700) {
        await page.keyboard.press('Escape');
        await page.getByTestId('sessions-sidebar').waitFor({ state: 'hidden' });
      }

      await page.reload();
      await expect.poll(() => header.textContent()).toBe(title);
      await showSessions(viewport);
      expect(await row.getByTestId('session-link').textContent()).toContain(title);
      if (viewport.width < 700) {
        await page.keyboard.press('Escape');
        await page.getByTestId('sessions-sidebar').waitFor({ state: 'hidden' });
      }
    } finally {
      await setNamesChats(false);
    }
  });

  it("previews an HTML code block in a sandbox where its script runs but reaches neither the page, the user's cookies nor the network", async () => {
    await newChat(`make a page ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const before = loopbackPaths.length;
    await lastAssistant(page).locator('[data-preview-code]').click();
    await page.getByTestId('code-preview').waitFor();
    const frame = page.frameLocator('[data-testid="code-preview-frame"]');
    await frame.locator('#title').filter({ hasText: 'Made by a script' }).waitFor();
    await frame.locator('#net').filter({ hasText: /network/ }).waitFor();
    expect(await frame.locator('p').allInnerTexts()).toEqual(['parent blocked', 'cookie blocked', 'network blocked']);
    await expectNoHorizontalOverflow();
    // Neither a script nor a link takes the frame to another site (the app's frame-src is 'self'):
    // the frame leaves the page for Chromium's error page, and the site is never asked.
    await frame.locator('#leave').click();
    await expect.poll(() => frame.locator('#title').count()).toBe(0);
    await page.getByTestId('modal-close').click();
    await lastAssistant(page).locator('[data-preview-code]').click();
    await frame.locator('#title').filter({ hasText: 'Made by a script' }).waitFor();
    await frame.locator('#away').click();
    await expect.poll(() => frame.locator('#title').count()).toBe(0);
    expect(loopbackPaths.slice(before)).toEqual([]);
    await page.getByTestId('modal-close').click();
    expect(await page.getByTestId('code-preview').count()).toBe(0);
    // Only HTML and SVG blocks offer it.
    expect(await lastAssistant(page).locator('[data-preview-code]').count()).toBe(1);
  });

  it('typesets formulas with KaTeX and its fonts, a wide one scrolling in its own block, and leaves prices as text', async () => {
    await newChat(`math ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const answer = lastAssistant(page).getByTestId('markdown-text');
    await answer.locator('.katex').first().waitFor();
    expect(await answer.locator('.math-inline .katex').count()).toBe(2);
    expect(await answer.locator('.math-display .katex-display').count()).toBe(2);
    expect(await answer.locator('.math-display').first().locator('.mfrac').count()).toBe(1);
    // The stylesheet arrived: the MathML copy is hidden from sight, the glyphs are in KaTeX's own font.
    const hidden = await answer.locator('.katex-mathml').first().evaluate((element) => getComputedStyle(element).position);
    expect(hidden).toBe('absolute');
    await expect.poll(() => page.evaluate(async () => (await document.fonts.ready, document.fonts.check('16px KaTeX_Main')))).toBe(true);
    expect(await answer.locator('.katex-html').first().evaluate((element) => getComputedStyle(element).fontFamily)).toContain('KaTeX_Main');
    const wide = answer.locator('.math-display').last();
    const scroll = await wide.evaluate((element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }));
    expect(scroll.scrollWidth).toBeGreaterThan(scroll.clientWidth);
    await expectNoHorizontalOverflow();
    expect(await answer.textContent()).toContain('That costs $5 and $10.');
    // Copy keeps the TeX as the model wrote it.
    await page.getByTestId('assistant-actions').last().getByTestId('copy-message').click();
    expect(await clipboard()).toBe(MATH_ANSWER);
  });

  it('draws a finished Mermaid block as a diagram with its code folded under it, shows why a broken one could not be drawn, and runs nothing a label holds', async () => {
    await newChat(`diagram ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const answer = lastAssistant(page).getByTestId('markdown-text');
    const diagram = answer.locator('.diagram-block').first();
    await diagram.locator('.diagram svg').waitFor();
    const labels = await diagram.locator('.diagram svg').evaluate((svg) => svg.textContent ?? '');
    for (const label of ['Ask a question', 'Job queue', 'Worker', 'Answer', 'streams']) expect(labels).toContain(label);
    expect(await diagram.locator('.diagram svg [onerror], .diagram svg img, .diagram svg script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    // The code is folded under the picture, and Copy still takes it.
    expect(await diagram.locator('details.diagram-source').getAttribute('open')).toBeNull();
    await diagram.locator('.diagram-source summary').click();
    expect(await diagram.locator('pre code').textContent()).toBe(`${DIAGRAM}\n`);
    await diagram.locator('[data-copy-code]').click();
    expect(await clipboard()).toBe(DIAGRAM);
    // A block Mermaid cannot parse: the reason, and the code shown as code.
    const broken = answer.locator('.code-block').last();
    await broken.locator('.diagram-error').waitFor();
    expect(await broken.locator('.diagram-error').textContent()).toMatch(/^This diagram could not be drawn: /);
    expect(await broken.locator('pre code').isVisible()).toBe(true);
    await expectNoHorizontalOverflow();
  });

  it('opens a chat at its latest message, and offers a way down to it only while the reader is scrolled away', async () => {
    await newChat(`tall ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const sessionUrl = page.url();
    await lastAssistant(page).getByText('Line 80 of a long answer.').waitFor();
    const button = page.getByTestId('scroll-to-latest');
    // The end of the answer is on screen (not under the composer docked at the bottom).
    const lastLineShown = () =>
      lastAssistant(page)
        .getByText('Line 80 of a long answer.')
        .evaluate((line) => {
          const box = line.getBoundingClientRect();
          const dock = document.querySelector('.composer-dock')?.getBoundingClientRect();
          return box.top >= 0 && box.bottom <= (dock?.top ?? window.innerHeight);
        });
    await expect.poll(lastLineShown).toBe(true);
    await expect.poll(() => button.count()).toBe(0);
    await page.evaluate(() => window.scrollTo({ top: 0 }));
    await button.waitFor();
    await expectInViewport(button);
    expect(await lastLineShown()).toBe(false);
    await button.click();
    await expect.poll(lastLineShown).toBe(true);
    await expect.poll(() => button.count()).toBe(0);
    // Opened again, the chat shows its latest message.
    await page.goto(`${stack.url}/chat`);
    await page.goto(sessionUrl);
    await expect.poll(lastLineShown).toBe(true);
  });

  it('notifies a reader whose tab is in the background when the answer is ready, once they turned it on, and not while they watch', async () => {
    // The browser's notifications and the tab's visibility, recorded and set by the test.
    await page.addInitScript(() => {
      const shown: { title: string; body: string }[] = [];
      class FakeNotification {
        static get permission() {
          return localStorage.getItem('fake-notification-permission') ?? 'default';
        }
        static async requestPermission() {
          localStorage.setItem('fake-notification-permission', 'granted');
          return 'granted';
        }
        onclick: (() => void) | null = null;
        constructor(title: string, options: { body: string }) {
          shown.push({ title, body: options.body });
        }
        close() {}
      }
      Object.assign(window, { shown, hidden: false, Notification: FakeNotification });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => ((window as unknown as { hidden: boolean }).hidden ? 'hidden' : 'visible') });
    });
    const shown = () => page.evaluate(() => (window as unknown as { shown: unknown[] }).shown);
    await page.goto(`${stack.url}/account`);
    const toggle = page.getByTestId('profile-notices');
    expect(await toggle.isChecked()).toBe(false);
    await toggle.check();
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await page.reload();
    expect(await page.getByTestId('profile-notices').isChecked()).toBe(true);

    await page.goto(`${stack.url}/chat`);
    await page.evaluate(() => Object.assign(window, { hidden: true }));
    await page.getByTestId('message-input').fill(`background ${tag}`);
    await page.getByTestId('message-input').press('Enter');
    await waitForRunStatus(page, 'succeeded');
    await expect.poll(shown).toEqual([{ title: 'The answer is ready', body: `Background ${tag}` }]);

    // Watching the tab: no notice.
    await page.evaluate(() => Object.assign(window, { hidden: false }));
    await sendMessage(page, `background again ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    await lastAssistant(page).getByText('Done in the background.').waitFor();
    expect(await shown()).toHaveLength(1);
    await page.goto(`${stack.url}/account`);
    await page.getByTestId('profile-notices').uncheck();
  });

  it("reads an answer aloud with the browser's speech synthesis, without its code, and stops on request or at the end", async () => {
    // The browser's speech engine, recorded: headless Chromium has no voices to hear.
    await page.addInitScript(() => {
      const spoken: { text: string; lang: string }[] = [];
      let queue: SpeechSynthesisUtterance[] = [];
      const finish = (utterance: SpeechSynthesisUtterance, type: 'end' | 'error') => utterance.dispatchEvent(new Event(type));
      Object.assign(window, { spoken, finishSpeech: () => { const all = queue; queue = []; for (const utterance of all) finish(utterance, 'end'); } });
      Object.defineProperty(window, 'speechSynthesis', {
        configurable: true,
        value: {
          speak: (utterance: SpeechSynthesisUtterance) => { spoken.push({ text: utterance.text, lang: utterance.lang }); queue.push(utterance); },
          cancel: () => { const all = queue; queue = []; for (const utterance of all) finish(utterance, 'error'); },
        },
      });
    });
    await newChat(`read aloud ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const actions = page.getByTestId('assistant-actions').last();
    const button = actions.getByTestId('read-aloud');
    expect(await button.textContent()).toBe('Read');
    await button.click();
    await expect.poll(() => button.getAttribute('aria-pressed')).toBe('true');
    expect(await button.textContent()).toBe('Stop reading');
    expect(await page.evaluate(() => (window as unknown as { spoken: unknown[] }).spoken)).toEqual([{ text: 'Run the tests like this:\nThen read the guide.', lang: '' }]);
    // Stop: the engine is told to cancel and the button is Read again.
    await button.click();
    await expect.poll(() => button.getAttribute('aria-pressed')).toBe('false');
    expect(await button.textContent()).toBe('Read');
    // Read to the end: the button comes back by itself.
    await button.click();
    await expect.poll(() => button.getAttribute('aria-pressed')).toBe('true');
    await page.evaluate(() => (window as unknown as { finishSpeech: () => void }).finishSpeech());
    await expect.poll(() => button.getAttribute('aria-pressed')).toBe('false');
    // Questions have no Read button.
    expect(await page.getByTestId('user-actions').last().getByTestId('read-aloud').count()).toBe(0);
  });

  it('forks an answer into a new chat that holds the conversation down to it, opens it at the top of the list, and leaves the first chat as it was', async () => {
    await newChat(`fork ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const sourceUrl = page.url();
    await sendMessage(page, `second ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const questions = () => page.getByTestId('user-message').locator('.text').allInnerTexts();
    expect(await questions()).toEqual([`fork ${tag}`, `second ${tag}`]);

    await page.getByTestId('assistant-actions').first().getByTestId('fork-message').click();
    await page.waitForURL((url) => /\/chat\/cs_[^/]+$/.test(url.pathname) && url.href !== sourceUrl);
    await expect.poll(questions).toEqual([`fork ${tag}`]);
    expect((await lastAssistant(page).getByTestId('markdown-text').textContent())!.trim()).toBe(`You said: fork ${tag}`);
    const forkId = new URL(page.url()).pathname.split('/').at(-1)!;
    if (viewport.width < 700) await page.getByTestId('sessions-drawer-toggle').click();
    await expect.poll(() => page.getByTestId('session-list').getByTestId('session-row').first().getAttribute('data-session-id')).toBe(forkId);
    if (viewport.width < 700) {
      // Esc closes the drawer (its scrim's middle lies under the drawer on a phone).
      await page.keyboard.press('Escape');
      await page.getByTestId('sessions-sidebar').waitFor({ state: 'hidden' });
    }

    // The fork goes on by itself; the first chat keeps both questions.
    await sendMessage(page, `elsewhere ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    expect(await questions()).toEqual([`fork ${tag}`, `elsewhere ${tag}`]);
    await page.goto(sourceUrl);
    await expect.poll(questions).toEqual([`fork ${tag}`, `second ${tag}`]);
  });

  it('downloads every chat in one file from Account → Data, imports it back, archives all and deletes all', async () => {
    // A user of its own: this one's chats all go.
    const own = await launchBrowser();
    try {
      const userPage = own.page;
      await userPage.setViewportSize({ width: viewport.width, height: viewport.height });
      await logInByBrowser(userPage, stack, await stack.createUser());
      for (const question of [`first data ${tag}`, `second data ${tag}`]) {
        await userPage.goto(`${stack.url}/chat`);
        await userPage.getByTestId('message-input').fill(question);
        await userPage.getByTestId('message-input').press('Enter');
        await userPage.waitForURL(/\/chat\/cs_[^/]+$/);
        await waitForRunStatus(userPage, 'succeeded');
      }
      await userPage.goto(`${stack.url}/account/data`);
      const [download] = await Promise.all([userPage.waitForEvent('download'), userPage.getByTestId('data-export').click()]);
      expect(download.suggestedFilename()).toMatch(/^agentq-chats-\d{4}-\d{2}-\d{2}\.json$/);
      const file = await readFile((await download.path())!, 'utf8');
      const chats = JSON.parse(file) as { messages: { parts: { text?: string }[] }[] }[];
      expect(chats.map((chat) => chat.messages.map((message) => message.parts.find((part) => part.text)?.text))).toEqual([
        [`first data ${tag}`, `You said: first data ${tag}`],
        [`second data ${tag}`, `You said: second data ${tag}`],
      ]);
      // With files: the same chats in a ZIP (these carry none, so it holds chats.json alone).
      const [zipDownload] = await Promise.all([userPage.waitForEvent('download'), userPage.getByTestId('data-export-zip').click()]);
      expect(zipDownload.suggestedFilename()).toMatch(/^agentq-chats-\d{4}-\d{2}-\d{2}\.zip$/);
      const zipped = unzipSync(new Uint8Array(await readFile((await zipDownload.path())!)));
      expect(Object.keys(zipped)).toEqual(['chats.json']);
      expect((JSON.parse(new TextDecoder().decode(zipped['chats.json'])) as unknown[]).length).toBe(2);
      await expectNoOverflowOn(userPage, 'account data');

      await userPage.getByTestId('chat-import-file').setInputFiles({ name: 'agentq-chats.json', mimeType: 'application/json', buffer: Buffer.from(file) });
      await userPage.getByTestId('chat-import-outcome').filter({ hasText: /2 of 2/ }).waitFor();

      await userPage.getByTestId('data-archive').click();
      await userPage.getByTestId('data-archive-confirm').click();
      expect(await userPage.getByTestId('data-notice').innerText()).toBe('Archived chats: 4.');
      await userPage.getByTestId('data-delete').click();
      await userPage.getByTestId('data-delete-confirm').click();
      await userPage.getByTestId('data-notice').filter({ hasText: 'Deleted chats: 4.' }).waitFor();
      await userPage.goto(`${stack.url}/account/archived`);
      await userPage.getByTestId('archived-empty').waitFor();
    } finally {
      await own.close();
    }
  });

  it('saves a prompt in Account → Prompts and calls it up with / in the message box, its {{placeholder}} selected to type over', async () => {
    await page.goto(`${stack.url}/account/prompts`);
    await page.getByTestId('prompt-new').click();
    await page.getByTestId('prompt-command').fill(`greet-${tag}`);
    await page.getByTestId('prompt-title').fill('Greeting');
    await page.getByTestId('prompt-content').fill('Say hello to {{name}} warmly from {{USER_NAME}}');
    await page.getByTestId('prompt-form-save').click();
    await page.getByTestId('prompt-row').filter({ hasText: `/greet-${tag}` }).waitFor();
    await expectNoHorizontalOverflow();

    await page.goto(`${stack.url}/chat`);
    const box = page.getByTestId('message-input');
    await box.pressSequentially(`/greet-${tag.slice(0, 2)}`);
    const options = page.getByTestId('prompt-option');
    await expect.poll(() => options.allInnerTexts()).toEqual([`/greet-${tag} Greeting`]);
    expect(await box.getAttribute('aria-activedescendant')).toBe(await options.first().getAttribute('id'));
    // Escape closes the menu until the slash is gone.
    await box.press('Escape');
    expect(await page.getByTestId('prompt-menu').count()).toBe(0);
    await box.pressSequentially('x');
    expect(await page.getByTestId('prompt-menu').count()).toBe(0);
    await box.fill('');
    await box.fill('/nothing-like-it');
    expect(await page.getByTestId('prompt-menu-empty').innerText()).toContain('No saved prompt matches /nothing-like-it.');
    await box.fill('');
    await box.pressSequentially(`/greet-${tag.slice(0, 2)}`);
    await options.first().waitFor();
    await box.press('Enter');
    // {{USER_NAME}} is filled in; {{name}} is selected to type over.
    expect(await box.inputValue()).toBe('Say hello to {{name}} warmly from Administrator');
    expect(await box.evaluate((element: HTMLTextAreaElement) => element.value.slice(element.selectionStart, element.selectionEnd))).toBe('{{name}}');
    await box.pressSequentially('Ada');
    expect(await box.inputValue()).toBe('Say hello to Ada warmly from Administrator');
    await box.press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');
    expect(await lastAssistant(page).getByTestId('markdown-text').innerText()).toBe('You said: Say hello to Ada warmly from Administrator');
  });

  it('Esc stops a running answer, focus is back in the composer after sending, Ctrl+Shift+C and Ctrl+Shift+; copy the last answer and code block, Ctrl+Shift+O opens a new chat, Ctrl+K searches, Ctrl+/ lists the shortcuts', async () => {
    await newChat(`slow ${tag}`);
    await lastAssistant(page).getByTestId('markdown-text').filter({ hasText: 'w3 ' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('message-input');
    await page.keyboard.press('Escape');
    await lastAssistant(page).getByTestId('run-stopped').waitFor();
    expect(await lastAssistant(page).getAttribute('data-status')).toBe('cancelled');

    await sendMessage(page, `hello again ${tag}`);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('message-input');
    await waitForRunStatus(page, 'succeeded');

    // Copy the last code block, then the last answer, without leaving the message box.
    await sendMessage(page, `wide again ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    await sendMessage(page, `hello again ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    await page.keyboard.press('Control+Shift+Semicolon');
    await expect.poll(clipboard).toBe(`${LONG_CODE_LINE}\nfunction greet(name) {\n  return 'hi ' + name;\n}`);
    await page.keyboard.press('Control+Shift+C');
    // "Copied" shows for 1.5 s: looked for first, as the clipboard (which keeps) is read by polling.
    await page.getByTestId('assistant-actions').last().getByTestId('copy-message').filter({ hasText: 'Copied' }).waitFor();
    await expect.poll(clipboard).toBe(`You said: hello again ${tag}`);

    await page.keyboard.press('Control+Shift+O');
    await page.waitForURL(`${stack.url}/chat`);
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
    await expect.poll(focused).toBe('message-input');

    // Ctrl+K searches the chats (the drawer opens on a phone), Shift+Esc goes back to the message box.
    await page.keyboard.press('Control+K');
    await expect.poll(focused).toBe('session-search');
    await page.keyboard.type(`hello again ${tag}`);
    await page.getByTestId('search-hit').first().waitFor();
    await page.keyboard.press('Shift+Escape');
    await expect.poll(focused).toBe('message-input');
    // Ctrl+/ lists the shortcuts, these among them.
    await page.keyboard.press('Control+/');
    const shortcuts = page.getByTestId('shortcuts-dialog').getByTestId('shortcut');
    await shortcuts.first().waitFor();
    expect(await shortcuts.allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/^New chat\s+Ctrl\+Shift\+O$/), expect.stringMatching(/^Search chats\s+Ctrl\+K$/), expect.stringMatching(/^Copy the last code block\s+Ctrl\+Shift\+;$/)]));
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('shortcuts-dialog').count()).toBe(0);
  });

  it('humanises a provider failure (details collapsible), shows the step-limit note once, and a tool failure text has one full stop', async () => {
    await newChat(`broken key ${tag}`);
    await waitForRunStatus(page, 'failed');
    const error = lastAssistant(page).getByTestId('run-error');
    const summary = (await error.getByTestId('run-error-summary').textContent()) ?? '';
    expect(summary).not.toMatch(/AI_|APICallError|Failed to process/);
    expect(summary).toContain('did not accept the API key');
    expect(await error.getByTestId('run-error-details').isVisible()).toBe(false);
    await error.locator('summary').click();
    expect(await error.getByTestId('run-error-details').textContent()).toContain('Incorrect API key');
    await expectNoHorizontalOverflow();

    await sendMessage(page, `loop ${tag}`);
    await waitForRunStatus(page, 'succeeded', 60_000);
    await lastAssistant(page).getByTestId('step-limit-note').waitFor();
    expect(await lastAssistant(page).getByText('tool-call limit').count()).toBe(1);
    await page.reload();
    await lastAssistant(page).getByTestId('step-limit-note').waitFor();
    expect(await lastAssistant(page).getByText('tool-call limit').count()).toBe(1);

    const before = requests.length;
    await sendMessage(page, `missing page ${tag}`);
    await waitForRunStatus(page, 'succeeded');
    const toolTexts = requests
      .slice(before)
      .flatMap((request) => request.messages.filter((message) => message.role === 'tool').map((message) => messageText(message)));
    const failure = toolTexts.find((text) => text.includes('Tool execution failed'));
    expect(failure).toBeDefined();
    expect(failure).not.toContain('..');
  });
});
