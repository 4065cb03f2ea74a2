/**
 * Suggested follow-up questions: an admin turns "Suggests follow-ups" on for a model in Admin →
 * Models; a user's answer then offers 3 questions under it, a click sends one (answered like a typed
 * question), and a reload shows the last answer's suggestions only. On a 390 px phone they wrap.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { lastUserMessageText, type ChatCompletionRequest } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, expectNoHorizontalOverflow, lastAssistant, logInByApi, logInByBrowser, sendMessage, waitForRunStatus } from './fixtures.ts';

const LISBON = ['Where should I stay in Lisbon?', 'What should I eat in Lisbon?', 'How do I get around Lisbon?'];
// The third one is long: on a phone it wraps inside its button instead of widening the page.
const STAY = ['Is Alfama quiet at night?', 'How much is a hotel in Baixa?', `Which neighbourhood is best for a family of five that wants to walk everywhere, eat late and still sleep well${'!'.repeat(20)}`];

/** The worker's follow-ups prompt (worker/src/agent/follow-ups-prompt.ts) starts like this. */
const isFollowUpsRequest = (request: ChatCompletionRequest) => (lastUserMessageText(request) ?? '').startsWith('Suggest follow-up questions:');

describe('suggested follow-up questions', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let modelId = '';

  beforeAll(async () => {
    llm = await startFakeLlm({
      script: (request) => {
        if (isFollowUpsRequest(request)) {
          // The prompt quotes the conversation: the newest question decides the suggestions.
          const prompt = lastUserMessageText(request)!;
          const questions = prompt.includes('User: Where should I stay in Lisbon?') ? STAY : LISBON;
          return { text: `\`\`\`json\n${JSON.stringify(questions)}\n\`\`\`` };
        }
        // Slow enough to see the suggestions gone while the next answer streams.
        return { text: `Answer to: ${lastUserMessageText(request)}`, latency: { timeToFirstTokenMs: 600, interTokenMs: 30 } };
      },
    });
    stack = await startStack();
    const headers = await logInByApi(stack);
    modelId = (await createByApi(stack, headers, '/api/models', { name: 'Fake model', baseUrl: llm.url, modelId: 'fake-model', apiKey: 'sk-fake', isDefault: true })).id;
    browser = await launchBrowser();
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await llm?.close();
  });

  const followUps = () => page.getByTestId('follow-ups').getByTestId('follow-up');

  it('an admin turns the flag on; the answer offers 3 questions, a click sends one, and a reload shows the last answer\'s', async () => {
    await logInByBrowser(page, stack);
    await page.goto(`${stack.url}/admin/models`);
    const row = page.locator(`[data-testid="model-row"][data-model-id="${modelId}"]`);
    expect(await row.getByTestId('model-suggests-follow-ups-badge').count()).toBe(0);
    await row.getByTestId('model-edit').click();
    const editor = page.getByTestId('model-editor');
    await editor.getByTestId('model-suggests-follow-ups').check();
    await editor.getByTestId('model-editor-save').click();
    await editor.waitFor({ state: 'detached' });
    await row.getByTestId('model-suggests-follow-ups-badge').waitFor();

    // A user (not the admin) asks.
    const user = await stack.createUser('user');
    await browser.context.clearCookies();
    await logInByBrowser(page, stack, user);
    await sendMessage(page, 'Plan a trip to Lisbon');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');
    await expect.poll(() => followUps().allInnerTexts()).toEqual(LISBON);
    // Under the answer: after it in the page.
    const below = await page.getByTestId('follow-ups').evaluate((list) => {
      const answer = [...document.querySelectorAll('[data-testid="assistant-message"]')].at(-1)!;
      return answer.compareDocumentPosition(list) & Node.DOCUMENT_POSITION_FOLLOWING;
    });
    expect(below).toBeTruthy();

    // A click sends the question as the next message: gone while it is answered, then the new answer's.
    await followUps().filter({ hasText: LISBON[0]! }).click();
    await expect.poll(() => page.getByTestId('assistant-message').count()).toBe(2);
    await expect.poll(() => page.getByTestId('user-message').last().innerText()).toContain(LISBON[0]!);
    expect(await followUps().count()).toBe(0);
    await waitForRunStatus(page, 'succeeded');
    await expect.poll(() => lastAssistant(page).innerText()).toContain(`Answer to: ${LISBON[0]}`);
    await expect.poll(() => followUps().allInnerTexts()).toEqual(STAY);
    expect(await page.getByTestId('follow-ups').count()).toBe(1);

    await page.reload();
    await waitForRunStatus(page, 'succeeded');
    await expect.poll(() => followUps().allInnerTexts()).toEqual(STAY);
    expect(await page.getByTestId('follow-ups').count()).toBe(1);

    // On a phone they wrap under the answer; the page never scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await expect.poll(() => followUps().count()).toBe(3);
    await expectNoHorizontalOverflow(page, 'chat with follow-ups at 390 px');
    const widths = await followUps().evaluateAll((buttons) => buttons.map((button) => button.getBoundingClientRect().right));
    for (const right of widths) expect(right).toBeLessThanOrEqual(390);
  });
});
