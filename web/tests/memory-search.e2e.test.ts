import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import type { ChatCompletionRequest, Turn } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, expectNoHorizontalOverflow, lastAssistant, logInByApi, logInByBrowser, waitForRunStatus } from './fixtures.ts';

/** The system prompt the model was sent ('' without one). */
function systemPrompt(request: ChatCompletionRequest): string {
  const system = request.messages.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : '';
}

/** Answers from the system prompt only, never with a tool: what a model with loaded memory can do. */
function answerFromMemory(request: ChatCompletionRequest): Turn {
  const remembered = /favourite colour is (\w+)/i.exec(systemPrompt(request));
  return { text: remembered ? `Your favourite colour is ${remembered[1]}.` : 'I do not know your favourite colour.' };
}

/** Sends from the new-chat page and waits (generously: the machine is shared) for the answer to appear. */
async function ask(page: Page, text: string) {
  await page.getByTestId('message-input').fill(text);
  await page.getByTestId('message-input').press('Enter');
  await page.getByTestId('assistant-message').first().waitFor({ timeout: 30_000 });
}

describe('memory loading, CJK search and the default model', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let headers: Record<string, string>;

  beforeAll(async () => {
    llm = await startFakeLlm({ script: answerFromMemory });
    stack = await startStack();
    headers = await logInByApi(stack);
    await createFakeModel(stack, headers, llm);
    // The memory tool exists, yet the answer must come without calling it.
    await createByApi(stack, headers, '/api/agent-tools', { name: 'Documents', slug: 'document', type: 'document' });
    await createByApi(stack, headers, '/api/agent-documents', { type: 'memory', title: 'Favourite colour', content: 'My favourite colour is teal.' });
    await createByApi(stack, headers, '/api/agent-documents', {
      type: 'memory',
      title: '周报',
      content: '# 周报\n\n本周会议纪要：讨论了项目进度，决定下周发布。\n\n| 事项 | 状态 |\n|---|---|\n| 发布 | 进行中 |',
    });
    await createByApi(stack, headers, '/api/agent-documents', { type: 'memory', title: 'Budget meeting', content: 'The meeting approved the budget.' });
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

  it('without memory loading a new conversation does not know; with it on, it answers from memory without a tool call', async () => {
    await page.goto(`${stack.url}/chat`);
    await ask(page, 'What is my favourite colour?');
    await waitForRunStatus(page, 'succeeded', 90_000);
    expect(await lastAssistant(page).textContent()).toContain('I do not know');

    // The admin turns memory loading on for the default agent.
    await page.goto(`${stack.url}/admin/agents`);
    await page.getByTestId('agent-edit').first().click();
    await page.getByTestId('agent-load-memory').check();
    await page.getByTestId('agent-memory-budget').fill('1500');
    await page.getByTestId('agent-editor-save').click();
    await page.getByTestId('agent-editor').waitFor({ state: 'detached' });

    const requestsBefore = llm.requests.length;
    await page.goto(`${stack.url}/chat`);
    await ask(page, 'What is my favourite colour?');
    await waitForRunStatus(page, 'succeeded', 90_000);
    expect(await lastAssistant(page).textContent()).toContain('Your favourite colour is teal.');
    expect(await lastAssistant(page).getByTestId('tool-card').count()).toBe(0);
    const sent = llm.requests.slice(requestsBefore);
    expect(sent).toHaveLength(1);
    expect(systemPrompt(sent[0]!)).toContain('## What you remember about this user');
    expect(sent[0]!.messages.some((message) => message.role === 'tool')).toBe(false);
  });

  for (const width of [1280, 390]) {
    it(`finds 会议纪要 and 项目进度 inside a sentence, highlighted, with a plain-text summary, at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${stack.url}/documents`);
      // The summary is prose, not markdown source.
      const summary = page.getByTestId('document-row').filter({ hasText: '周报' }).getByTestId('document-summary');
      expect(await summary.textContent()).not.toMatch(/[#|]/);

      for (const query of ['会议纪要', '项目进度']) {
        await page.getByTestId('documents-search-input').fill(query);
        await page.getByTestId('documents-search-submit').click();
        await page.waitForURL((url) => url.searchParams.get('q') === query);
        const rows = page.getByTestId('document-row');
        await expect.poll(() => rows.first().getByTestId('document-snippet').locator('mark').first().textContent(), { timeout: 15_000 }).toBe(query);
        expect(await rows.count()).toBe(1);
        expect(await rows.first().textContent()).toContain('周报');
        expect(await rows.first().getByTestId('document-snippet').textContent()).not.toMatch(/[#|]/);
        await expectNoHorizontalOverflow(page);
      }
      // English keeps its stemmed search beside it.
      await page.getByTestId('documents-search-input').fill('meetings');
      await page.getByTestId('documents-search-submit').click();
      await page.waitForURL((url) => url.searchParams.get('q') === 'meetings');
      await expect.poll(() => page.getByTestId('document-row').first().textContent(), { timeout: 15_000 }).toContain('Budget meeting');
    });
  }

  it('an admin makes another model the default, and new chats use it', async () => {
    const other = await createByApi<{ id: string }>(stack, headers, '/api/models', { name: 'Second model', baseUrl: llm.url, modelId: 'second', apiKey: 'sk-2' });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${stack.url}/admin/models`);
    const row = page.locator(`[data-testid="model-row"][data-model-id="${other.id}"]`);
    await row.getByTestId('model-edit').click();
    await page.getByTestId('model-is-default').check();
    await page.getByTestId('model-editor-save').click();
    await row.getByTestId('model-default-badge').waitFor();
    expect(await page.getByTestId('model-default-badge').count()).toBe(1);

    const session = await createByApi<{ id: string }>(stack, headers, '/api/sessions', {});
    const started = await fetch(`${stack.url}/api/sessions/${session.id}/runs`, { method: 'POST', headers, body: JSON.stringify({ content: 'hello' }) });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    const run = (await (await fetch(`${stack.url}/api/runs/${runId}`, { headers })).json()) as { modelId: string };
    expect(run.modelId).toBe(other.id);
  });
});
