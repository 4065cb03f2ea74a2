/**
 * Switching to 中文 translates the whole UI, at 1280 px and on a 390 px phone: every page (chat with
 * a finished tool call and a pending approval, documents with revisions, the approvals inbox, every
 * admin page with an editor dialog open, a run page, account, tokens and usage) shows no English UI text.
 * "English UI text" is any English catalog message (or a literal part of one) and any run of English
 * words; data (names, model and tool output, ids) is marked translate="no" and is not read.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { byLastUserMessage, lastUserMessageText, toolResultsSinceLastUserMessage } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { en } from '../src/lib/i18n/messages/en.ts';
import { zh } from '../src/lib/i18n/messages/zh.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, expectNoHorizontalOverflow, logInByApi, logInByBrowser, startLoopback, waitForRunStatus } from './fixtures.ts';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The English a Chinese page must not show: each catalog message whose Chinese differs, or for a
 * message with parameters its literal parts ("Showing ", " executions."), whole words only.
 */
const ENGLISH_PHRASES = Object.entries(en)
  .filter(([key, text]) => text !== zh[key as keyof typeof zh])
  .flatMap(([, text]) => text.split(/\{\w+\}/).map((part) => part.trim()))
  .filter((part) => /[A-Za-z]{3}/.test(part) && part.length >= 4);
const PHRASE_PATTERNS = [...new Set(ENGLISH_PHRASES)].map((phrase) => ({ phrase, pattern: new RegExp(`(^|[^A-Za-z])${escape(phrase)}($|[^A-Za-z])`) }));

/**
 * Latin words a Chinese page may show: the product, formats and protocols, units, the demo data's
 * own words where they sit inside a translated sentence.
 */
const ALLOWED_WORDS = new Set(['agentq', 'API', 'JSON', 'HTTP', 'PID', 'Markdown', 'Token', 'Schema', 'Base', 'URL', 'ID', 'worker', 'Enter', 'Shift', 'Ctrl', 'Idempotency', 'Key', 'English', 'bull', 'board', 'ms', 'min', 'OpenAPI', 'MCP', 'LLM', 'OpenAI', 'Bearer', 'Authorization', 'http', 'https']);

/**
 * Data that cannot be marked translate="no" (inside a select's options): this test's model and the
 * agent a fresh install names "Default agent" (a name admins may change, not a UI text).
 */
const DATA = ['Fake model', 'Default agent'];

type Leftover = { phrases: string[]; words: string[] };

async function englishLeft(page: Page): Promise<Leftover> {
  // Data is marked translate="no" (names, model and tool output, ids): hidden while the page is read.
  // So is SvelteKit's route announcer, which repeats the title of the page loaded before the switch.
  let text = await page.evaluate(() => {
    const hidden = [...document.querySelectorAll<HTMLElement>('[translate="no"], code, pre, time, #svelte-announcer')];
    const saved = hidden.map((element) => element.style.display);
    for (const element of hidden) element.style.display = 'none';
    const placeholders = [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input[placeholder], textarea[placeholder]')]
      .filter((element) => element.checkVisibility() && !element.closest('[translate="no"]'))
      .map((element) => element.placeholder);
    const visible = `${document.body.innerText}\n${placeholders.join('\n')}`;
    hidden.forEach((element, index) => (element.style.display = saved[index] ?? ''));
    return visible;
  });
  for (const name of DATA) text = text.replaceAll(name, '');
  // Each finding names the line it is on, so a failure says where to look.
  const lines = text.split('\n');
  const lineOf = (pattern: RegExp) => lines.find((line) => pattern.test(line))?.trim() ?? '';
  const phrases = PHRASE_PATTERNS.filter(({ pattern }) => pattern.test(text)).map(({ phrase, pattern }) => `${phrase} ← ${lineOf(pattern)}`);
  // Two English words in a row are a sentence fragment nobody translated ("Load more", "No runs yet").
  const words = [...text.matchAll(/[A-Za-z][a-z]+(?:[ -][A-Za-z][a-z]+)+/g)]
    .map(([match]) => match)
    .filter((match) => match.split(/[ -]/).some((word) => !ALLOWED_WORDS.has(word)))
    .map((match) => `${match} ← ${lineOf(new RegExp(escape(match)))}`);
  return { phrases, words: [...new Set(words)] };
}

async function expectChinese(page: Page, where: string): Promise<void> {
  expect(await englishLeft(page), where).toEqual({ phrases: [], words: [] });
  await expectNoHorizontalOverflow(page, where);
}

async function visit(page: Page, url: string, ready: string): Promise<void> {
  await page.goto(url);
  await page.locator(ready).first().waitFor();
}

describe('Chinese UI', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let target: Awaited<ReturnType<typeof startLoopback>>;
  let browser: LaunchedBrowser | undefined;

  beforeAll(async () => {
    target = await startLoopback((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('Plain page text');
    });
    // "fetch …" calls the web tool and then answers; "order …" calls a tool that needs approval.
    llm = await startFakeLlm({
      script: byLastUserMessage([
        {
          match: /^(fetch|order)/i,
          reply: (request) => {
            if (toolResultsSinceLastUserMessage(request).length > 0) return { text: 'The page says: Plain page text' };
            const tool = /^order/i.test(lastUserMessageText(request) ?? '') ? 'order' : 'web';
            return { toolCalls: [{ name: tool, input: { url: `${target.url}/page` } }] };
          },
        },
      ], { text: 'Hello there' }),
    });
    stack = await startStack();
    const admin = await logInByApi(stack);
    await createByApi(stack, admin, '/api/models', { name: 'Fake model', baseUrl: llm.url, modelId: 'fake-model', apiKey: 'sk-fake', isDefault: true });
    await createByApi(stack, admin, '/api/agent-tools', { name: 'Web', slug: 'web', type: 'fetch' });
    await createByApi(stack, admin, '/api/agent-tools', { name: 'Purchase', slug: 'order', type: 'fetch', needsApproval: true });
    // A banner above every page: its kind (read out) and its × are the UI's; its text is the admin's.
    await createByApi(stack, admin, '/api/admin/banners', { kind: 'warning', text: 'Maintenance **tonight**: see [the notes](https://example.com/notes)' });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await llm?.close();
    await target?.close();
  });

  for (const width of [1280, 390]) {
    it(`switching to 中文 translates every page and is remembered for the account, at ${width} px`, async () => {
      const user = await stack.createUser('admin');
      const headers = await logInByApi(stack, user);
      // A document with two revisions (the user wrote both).
      const doc = await createByApi<{ id: string; version: number }>(stack, headers, '/api/agent-documents', { title: 'Weekly notes', content: '# Notes\n\nFirst draft.', tags: 'work' });
      const edit = await fetch(`${stack.url}/api/agent-documents/${doc.id}`, { method: 'PUT', headers, body: JSON.stringify({ content: '# Notes\n\nSecond draft.', expectedVersion: doc.version }) });
      expect(edit.status).toBe(200);

      browser = await launchBrowser({ locale: 'en-US' });
      const { page } = browser;
      await page.setViewportSize({ width, height: 900 });
      await logInByBrowser(page, stack, user);
      expect(await page.getByTestId('nav-chat').textContent()).toContain('Chat');

      await page.getByTestId('language-select').selectOption('zh');
      await expect.poll(() => page.getByTestId('nav-chat').textContent()).toContain('对话');
      expect(await page.getByTestId('main-nav').innerText()).toMatch(/对话[\s\S]*文档[\s\S]*审批[\s\S]*管理/);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
      expect(await page.getByTestId('logout-button').textContent()).toContain('退出登录');
      await expectChinese(page, 'new chat');
      // The model dropdown names the default model in Chinese too.
      expect(await page.getByTestId('model-default-option').textContent()).toBe('默认（Fake model）');

      // A chat with a finished tool call.
      await page.getByTestId('message-input').fill('fetch the page');
      await page.getByTestId('message-input').press('Enter');
      await page.waitForURL(/\/chat\/[^/]+$/);
      await waitForRunStatus(page, 'succeeded');
      expect(await page.getByTestId('tool-card').getAttribute('data-status')).toBe('succeeded');
      expect(await page.getByTestId('tool-status').textContent()).toContain('成功');
      await expectChinese(page, 'chat with a tool call');
      // Rating the answer: the thumbs, the comment box and the details line are Chinese too.
      const answerActions = page.getByTestId('assistant-actions').last();
      await answerActions.getByTestId('feedback-down').click();
      await answerActions.getByTestId('feedback-form').waitFor();
      await answerActions.getByTestId('answer-details-toggle').click();
      expect(await answerActions.getByTestId('answer-details').textContent()).toMatch(/^Fake model · 输入 [\d,]+ · 输出 [\d,]+ tokens/);
      await expectChinese(page, 'rating an answer');
      await answerActions.getByTestId('feedback-comment-save').click();
      await answerActions.getByTestId('feedback-form').waitFor({ state: 'detached' });
      // Sharing it: the dialog with its link, then the shared page a reader opens.
      await page.getByTestId('chat-share').click();
      await page.getByTestId('share-create').click();
      const link = await page.getByTestId('share-link').inputValue();
      await expectChinese(page, 'share dialog');
      await page.getByTestId('modal-close').click();
      await visit(page, link, '[data-testid="shared-conversation"]');
      expect(await page.getByTestId('shared-save-copy').textContent()).toBe('保存副本到我的对话');
      await expectChinese(page, 'shared chat');

      // A chat with an approval card waiting for a decision.
      await page.goto(`${stack.url}/chat`);
      await page.getByTestId('message-input').fill('order a book');
      await page.getByTestId('message-input').press('Enter');
      await page.waitForURL(/\/chat\/[^/]+$/);
      await page.getByTestId('approval-approve').waitFor();
      expect(await page.getByTestId('approval-approve').textContent()).toContain('批准');
      await expectChinese(page, 'chat with an approval');

      await visit(page, `${stack.url}/approvals`, '[data-testid="approval-item"]');
      await expectChinese(page, 'approvals inbox');

      await visit(page, `${stack.url}/documents?type=document`, '[data-testid="document-row"]');
      await expectChinese(page, 'documents');
      await visit(page, `${stack.url}/documents/${doc.id}`, '[data-testid="revision"]');
      expect(await page.getByTestId('revision').count()).toBe(2);
      await page.getByTestId('revision-preview').last().click();
      await page.getByTestId('revision-preview-dialog').waitFor();
      await expectChinese(page, 'document with revisions');
      await page.getByTestId('revision-preview-close').click();

      for (const [path, ready] of [
        ['/admin', 'h1'],
        ['/admin/agents', '[data-testid="agents-table"], table'],
        ['/admin/models', 'table'],
        ['/admin/users', 'table'],
        ['/admin/groups', '[data-testid="groups-empty"], table'],
        ['/admin/banners', '[data-testid="banners-empty"], table'],
        ['/admin/feedback', '[data-testid="feedback-item"]'],
        ['/admin/usage', '[data-testid="usage-users"]'],
        ['/admin/tool-logs', '[data-testid="log-row"]'],
        ['/admin/workers', '[data-testid="run-row"]'],
        ['/account', 'h1'],
        ['/account/tokens', 'h1'],
        ['/account/prompts', '[data-testid="prompts-empty"]'],
        ['/account/archived', '[data-testid="archived-empty"]'],
        ['/account/shared', '[data-testid="share-row"]'],
        ['/account/usage', '[data-testid="usage-models"]'],
        ['/account/data', '[data-testid="data-export"]'],
        ['/knowledge', '[data-testid="knowledge-empty"]'],
      ] as const) {
        await visit(page, `${stack.url}${path}`, ready);
        expect(await page.locator('h1').first().textContent(), path).toMatch(/[\u4e00-\u9fff]/);
        await expectChinese(page, path);
      }

      // A run page, reached from the workers dashboard.
      await visit(page, `${stack.url}/admin/workers`, '[data-testid="run-link"]');
      await page.getByTestId('run-link').last().click();
      await page.getByTestId('timeline-step').first().waitFor();
      await page.getByTestId('events-state').filter({ hasText: '已回放' }).waitFor();
      await expectChinese(page, 'run page');

      // The tools page, its editor (the web tool's form) and its execute dialog.
      await visit(page, `${stack.url}/admin/tools`, '[data-testid="tool-row-web"]');
      await expectChinese(page, '/admin/tools');
      // The type's name, summary and effect rule are the catalog's Chinese, not the registry's English.
      const webRow = page.getByTestId('tool-row-web');
      expect(await webRow.getByTestId('tool-type-label').textContent()).toBe('网页抓取');
      expect(await webRow.getByTestId('tool-type-label').getAttribute('title')).toMatch(/^抓取公开网页/);
      expect(await webRow.getByTestId('tool-effect').getAttribute('title')).toMatch(/幂等的（RFC 9110）/);
      await webRow.getByTestId('tool-action-edit').click();
      await page.getByTestId('tool-editor').waitFor();
      await expectChinese(page, 'tool editor');
      // The config form too: its fields' labels and help (marked translate="no", as the execute
      // form's model-facing help is, so expectChinese does not read them).
      expect(await page.getByTestId('tool-type-summary').textContent()).toMatch(/^抓取公开网页或 HTTP API/);
      const editorText = await page.getByTestId('tool-editor').innerText();
      for (const text of ['默认方法', '调用未指定方法时使用的 HTTP 方法。', '允许的域名', '解析方式']) expect(editorText).toContain(text);
      for (const text of ['Default method', 'HTTP method used', 'Allowed domains', 'Parse mode']) expect(editorText).not.toContain(text);
      await page.getByTestId('tool-editor-cancel').click();
      await page.getByTestId('tool-row-web').getByTestId('tool-action-execute').click();
      await page.getByTestId('execute-dialog').waitFor();
      await expectChinese(page, 'tool execute dialog');
      await page.getByTestId('execute-close').click();

      // An agent editor, and a form error in Chinese too.
      await visit(page, `${stack.url}/admin/users`, '[data-testid="user-new"]');
      await page.getByTestId('user-new').click();
      await page.getByTestId('user-form-save').click();
      await expect.poll(() => page.getByTestId('user-form-error').textContent(), { timeout: 15_000 }).toBe('请检查标出的字段：有 3 处需要修改。');
      await expectChinese(page, 'user editor with errors');
      await page.getByTestId('user-form-cancel').click();

      // The account remembers it: a fresh browser that prefers English opens in Chinese after sign-in.
      await browser.close();
      browser = await launchBrowser({ locale: 'en-US' });
      await browser.page.setViewportSize({ width, height: 900 });
      await logInByBrowser(browser.page, stack, user);
      await expect.poll(() => browser!.page.getByTestId('nav-chat').textContent()).toContain('对话');
      await browser.close();
      browser = undefined;
    }, 180_000);
  }

  it('a browser that prefers Chinese gets Chinese before anyone chose, from the login page on', async () => {
    browser = await launchBrowser({ locale: 'zh-CN' });
    await browser.page.goto(`${stack.url}/login`);
    expect(await browser.page.getByTestId('login-submit').textContent()).toContain('登录');
    await expectChinese(browser.page, 'login');
    await logInByBrowser(browser.page, stack);
    expect(await browser.page.getByTestId('nav-documents').textContent()).toContain('文档');
    await browser.close();
    browser = undefined;
  });
});
