import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createFakeModel, expectNoHorizontalOverflow, lastAssistant, logInByApi, logInByBrowser, waitForRunStatus } from './fixtures.ts';

const SLOW = { timeout: 30_000 };
const API_KEY = 'sk-e2e-image-key-0123456789';
const PROMPT = 'A red fox asleep in fresh snow, watercolour';

describe('Image generation', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    // The demo model: `[[tool:NAME {...}]]` in a message makes it call that tool, then it shows the result.
    llm = await startFakeLlm();
    stack = await startStack();
    const admin = await logInByApi(stack);
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

  /** Whether the card's picture loaded (a broken image has naturalWidth 0). */
  const pictureWidth = () => lastAssistant(page).getByTestId('tool-image').locator('img').evaluate((image: HTMLImageElement) => (image.complete ? image.naturalWidth : 0));

  it('an admin flags a model "Generates images" and adds the tool; a chat run draws a picture that shows in its tool card and survives a reload', async () => {
    await page.goto(`${stack.url}/admin/models`);
    await page.getByTestId('model-new').click();
    const editor = page.getByTestId('model-editor');
    await editor.getByTestId('model-name').fill('Painter');
    await editor.getByTestId('model-base-url').fill(llm.url);
    await editor.getByTestId('model-model-id').fill('gpt-image-1');
    await editor.getByTestId('model-api-key').fill(API_KEY);
    await editor.getByTestId('model-generates-images').check();
    await editor.getByTestId('model-editor-save').click();
    await editor.waitFor({ state: 'detached' });
    await page.getByTestId('model-row').filter({ hasText: 'Painter' }).getByTestId('model-generates-images-badge').waitFor(SLOW);

    await page.goto(`${stack.url}/admin/tools`);
    await page.getByTestId('tool-new').click();
    await page.getByTestId('tool-editor').waitFor();
    await page.getByTestId('tool-name').fill('Painter');
    await page.getByTestId('tool-description').fill('Draws pictures.');
    await page.getByTestId('tool-type').selectOption('image-generation');
    expect(await page.getByTestId('config-field-size').locator('option:checked').textContent()).toContain('1024x1024');
    await page.getByTestId('tool-editor-save').click();
    await page.getByTestId('tool-editor').waitFor({ state: 'detached' });
    await page.getByTestId('tool-row-painter').waitFor(SLOW);

    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('send-button').waitFor(SLOW);
    await page.getByTestId('message-input').fill(`[[tool:painter {"prompt":"${PROMPT}"}]]`);
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');
    const card = lastAssistant(page).getByTestId('tool-card');
    await card.getByTestId('tool-status').filter({ hasText: 'Succeeded' }).waitFor(SLOW);
    const picture = card.getByTestId('tool-image').locator('img');
    expect(await picture.getAttribute('alt')).toBe(PROMPT);
    await expect.poll(pictureWidth, SLOW).toBeGreaterThan(0);
    expect(await card.getByTestId('tool-image-link').getAttribute('href')).toMatch(/^\/api\/sessions\/[^/]+\/files\/[^/]+$/);
    expect(llm.images).toEqual([expect.objectContaining({ model: 'gpt-image-1', prompt: PROMPT, size: '1024x1024', authorization: `Bearer ${API_KEY}` })]);
    // The model read that the picture is shown, never its bytes.
    const lastRequest = JSON.stringify(llm.requests.at(-1));
    expect(lastRequest).toContain('Generated an image (1024x1024)');
    expect(lastRequest).not.toContain('base64');

    await page.reload();
    await lastAssistant(page).getByTestId('tool-card').waitFor(SLOW);
    await expect.poll(pictureWidth, SLOW).toBeGreaterThan(0);

    // On a phone the picture fits the card.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(pictureWidth, SLOW).toBeGreaterThan(0);
    await expectNoHorizontalOverflow(page, 'chat with a generated image');

    // Shared by link: the page fetches the picture through the link (a reader cannot open the chat's files).
    const sessionId = new URL(page.url()).pathname.split('/').at(-1)!;
    const shareId = await page.evaluate(async (id) => ((await (await fetch(`/api/sessions/${id}/share`, { method: 'PUT' })).json()) as { id: string }).id, sessionId);
    await page.goto(`${stack.url}/shared/${shareId}`);
    const sharedPicture = page.getByTestId('tool-image').locator('img');
    await sharedPicture.waitFor(SLOW);
    expect(await sharedPicture.getAttribute('src')).toMatch(new RegExp(`^/api/shared/${shareId}/files/[^/]+$`));
    await expect.poll(() => sharedPicture.evaluate((image: HTMLImageElement) => (image.complete ? image.naturalWidth : 0)), SLOW).toBeGreaterThan(0);
  });

  it('run from Admin → Tools, outside a chat, the picture comes back inline and shows in the result', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${stack.url}/admin/tools`);
    await page.getByTestId('tool-row-painter').getByTestId('tool-action-execute').click();
    await page.getByTestId('input-tabs-raw').click();
    await page.getByTestId('input-raw').fill(JSON.stringify({ prompt: 'A lighthouse at dusk' }));
    await page.getByTestId('execute-run').click();
    await page.getByTestId('execute-result').waitFor(SLOW);
    expect(await page.getByTestId('execute-result-status').textContent()).toContain('Success');
    const picture = page.getByTestId('execute-result-image');
    expect(await picture.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await picture.getAttribute('alt')).toBe('A lighthouse at dusk');
    await expect.poll(() => picture.evaluate((image: HTMLImageElement) => (image.complete ? image.naturalWidth : 0)), SLOW).toBeGreaterThan(0);
  });
});
