import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { byLastUserMessage } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, lastAssistant, logInByApi, logInByBrowser, waitForRunStatus } from './fixtures.ts';

const SLOW = { timeout: 30_000 };

describe('Knowledge bases chosen with # for a message', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    llm = await startFakeLlm({
      script: byLastUserMessage([
        {
          match: 'roses',
          // No tool is set up on the instance: the search the model calls exists because the message chose a base.
          reply: [{ toolCalls: [{ name: 'search_chosen_knowledge', input: { query: 'pruning roses' } }] }, { text: 'Cut the stems back by a third in early spring [1].' }],
        },
        { match: /./, reply: { text: 'Hello.' } },
      ]),
    });
    stack = await startStack();
    const admin = await logInByApi(stack);
    await createFakeModel(stack, admin, llm);
    const baseWith = async (name: string, fileName: string, text: string) => {
      const base = await createByApi(stack, admin, '/api/knowledge', { name });
      const form = new FormData();
      form.append('file', new File([text], fileName, { type: 'text/markdown' }));
      const upload = await fetch(`${stack.url}/api/knowledge/${base.id}/files`, { method: 'POST', headers: { cookie: admin.cookie }, body: form });
      expect(upload.status, await upload.clone().text()).toBe(201);
      for (let tries = 0; ; tries += 1) {
        const detail = (await (await fetch(`${stack.url}/api/knowledge/${base.id}`, { headers: admin })).json()) as { files: { status: string }[] };
        if (detail.files[0]?.status === 'ready') break;
        if (tries > 300) throw new Error(`the knowledge file is still ${detail.files[0]?.status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return base;
    };
    await baseWith('Garden notes', 'roses.md', '# Roses\n\nPruning roses: cut the stems back by a third in early spring.\n');
    await baseWith('Orchard diary', 'apples.md', '# Orchard\n\nPruning roses in the orchard: never before the apples are picked.\n');

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

  it('picks a base with #, sends it as a chip, and the answer cites the passage the per-message search found; the chip stays after a reload', async () => {
    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('send-button').waitFor(SLOW);
    const box = page.getByTestId('message-input');

    // `#` lists the bases; typing narrows them; Enter chooses, taking the #word out of the box.
    await box.fill('When do I prune roses? #');
    await page.getByTestId('knowledge-menu').waitFor(SLOW);
    expect(await page.getByTestId('knowledge-option').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('Garden notes'), expect.stringContaining('Orchard diary')]));
    await box.pressSequentially('orch');
    await expect.poll(() => page.getByTestId('knowledge-option').allInnerTexts()).toEqual([expect.stringContaining('Orchard diary')]);
    await box.press('Enter');
    expect(await page.getByTestId('chosen-knowledge-base').allInnerTexts()).toEqual([expect.stringContaining('Orchard diary')]);
    expect(await box.inputValue()).toBe('When do I prune roses? ');
    // A chosen base can be taken off again; a click chooses as well as Enter.
    await page.getByTestId('chosen-knowledge-remove').click();
    expect(await page.getByTestId('chosen-knowledge-base').count()).toBe(0);
    await box.pressSequentially('#gard');
    await page.getByTestId('knowledge-option').filter({ hasText: 'Garden notes' }).click();
    expect(await page.getByTestId('chosen-knowledge-base').allInnerTexts()).toEqual([expect.stringContaining('Garden notes')]);
    await page.getByTestId('knowledge-menu').waitFor({ state: 'detached', ...SLOW });

    await box.press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');

    // The model searched exactly the chosen base: the garden passage, not the orchard's.
    const toolReply = llm.requests.flatMap((request) => request.messages).find((message) => message.role === 'tool');
    expect(String(toolReply?.content)).toContain('cut the stems back by a third');
    expect(String(toolReply?.content)).not.toContain('apples');

    const expectShown = async (where: string) => {
      const text = lastAssistant(page).getByTestId('markdown-text');
      await text.locator('button.citation').first().waitFor(SLOW);
      expect(await text.locator('button.citation').allInnerTexts(), where).toEqual(['1']);
      expect(await lastAssistant(page).getByTestId('source-chip').allInnerTexts(), where).toEqual(['1\nroses.md']);
      const question = page.getByTestId('user-message').last();
      expect(await question.getByTestId('message-knowledge-base').allInnerTexts(), where).toEqual([expect.stringContaining('Garden notes')]);
      expect(await question.innerText(), where).toContain('When do I prune roses?');
    };
    await expectShown('live');
    await page.reload();
    await waitForRunStatus(page, 'succeeded');
    await expectShown('after reload');
    // The composer is empty again: the chip went with the message.
    expect(await page.getByTestId('chosen-knowledge-base').count()).toBe(0);
  });
});
