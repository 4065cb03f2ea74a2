import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createFakeModel, expectNoHorizontalOverflow, logInByApi, logInByBrowser, type Credentials } from './fixtures.ts';

// A real audio stream without a microphone or a permission prompt: Chromium's fake capture device
// (a beep) and its fake prompt, which allows.
const FAKE_MICROPHONE = ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'];
const SCRIPTED = 'Hello from the fake microphone.';
const SLOW = { timeout: 30_000 };

describe('voice input (dictation) in the chat composer', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let user: Credentials;

  beforeAll(async () => {
    stack = await startStack();
    llm = await startFakeLlm({ transcription: SCRIPTED });
    await createFakeModel(stack, await logInByApi(stack), llm);
    user = await stack.createUser();
    browser = await launchBrowser({ args: FAKE_MICROPHONE });
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await llm?.close();
    await stack?.stop();
  });

  async function openChat(credentials: Credentials) {
    await browser.context.clearCookies();
    await logInByBrowser(page, stack, credentials);
    await page.getByTestId('message-input').waitFor(SLOW);
  }

  it('offers no microphone until an admin flags a model "Transcribes speech" in Admin → Models', async () => {
    await openChat(user);
    // The options are loaded once the model picker lists the chat model.
    await expect.poll(() => page.getByTestId('model-select').locator('option').count()).toBe(2);
    expect(await page.getByTestId('dictation-button').count()).toBe(0);

    await openChat(stack.admin);
    await page.goto(`${stack.url}/admin/models`);
    await page.getByTestId('model-new').click();
    const editor = page.getByTestId('model-editor');
    await editor.getByTestId('model-name').fill('Whisper');
    await editor.getByTestId('model-base-url').fill(llm.url);
    await editor.getByTestId('model-model-id').fill('whisper-1');
    await editor.getByTestId('model-api-key').fill('sk-whisper-e2e');
    expect(await editor.getByTestId('model-transcribes-speech').isChecked()).toBe(false);
    await editor.getByTestId('model-transcribes-speech').check();
    await editor.getByTestId('model-editor-save').click();
    await editor.waitFor({ state: 'detached' });
    const row = page.getByTestId('model-row').filter({ hasText: 'Whisper' });
    await row.getByTestId('model-transcribes-speech-badge').waitFor();
    await page.reload();
    await row.getByTestId('model-edit').click();
    expect(await editor.getByTestId('model-transcribes-speech').isChecked()).toBe(true);
    await editor.getByTestId('model-editor-cancel').click();

    // The user now has a microphone; the transcription model is no chat model of theirs.
    await openChat(user);
    await page.getByTestId('dictation-button').waitFor(SLOW);
    expect(await page.getByTestId('model-select').locator('option').allTextContents()).not.toContain('Whisper');
    // Pages may use the microphone themselves (and only they: no frame of another origin).
    expect((await fetch(`${stack.url}/chat`)).headers.get('permissions-policy')).toContain('microphone=(self)');
  });

  it('records the microphone, transcribes on Stop and puts the text at the caret, unsent', async () => {
    await openChat(user);
    llm.transcriptions.length = 0;
    const input = page.getByTestId('message-input');
    await input.fill('Please translate: ');
    await page.getByTestId('dictation-button').click();
    await page.getByTestId('dictation-recording').waitFor(SLOW);
    await expectNoHorizontalOverflow(page, 'composer while recording');
    await expect.poll(() => page.getByTestId('dictation-elapsed').textContent(), SLOW).toBe('0:01');
    await page.getByTestId('dictation-stop').click();

    await expect.poll(() => input.inputValue(), SLOW).toBe(`Please translate: ${SCRIPTED}`);
    // The caret sits after the inserted words, in the box, ready to edit.
    expect(await input.evaluate((element: HTMLTextAreaElement) => [document.activeElement === element, element.selectionStart])).toEqual([true, `Please translate: ${SCRIPTED}`.length]);
    // Real WebM audio from the browser's recorder reached the model, with the UI's language.
    expect(llm.transcriptions).toHaveLength(1);
    const received = llm.transcriptions[0]!;
    expect(received).toMatchObject({ model: 'whisper-1', language: 'en', responseFormat: 'json', fileName: 'recording.webm', mimeType: 'audio/webm', authorization: 'Bearer sk-whisper-e2e' });
    expect(received.leadingBytes.startsWith('1a45dfa3')).toBe(true);
    expect(received.byteCount).toBeGreaterThan(1000);
    // Not sent: no answer was asked for, and the user can still edit and send it.
    expect(await page.getByTestId('assistant-message').count()).toBe(0);
    expect(await page.getByTestId('send-button').isEnabled()).toBe(true);
    expect(await page.getByTestId('dictation-error').count()).toBe(0);
  });

  it('drops a recording on Escape, and says so in words when the model fails', async () => {
    await openChat(user);
    llm.transcriptions.length = 0;
    const input = page.getByTestId('message-input');
    await input.fill('Draft');
    // On a phone the recording controls share the row with the box.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId('dictation-button').click();
    await page.getByTestId('dictation-recording').waitFor(SLOW);
    await expectNoHorizontalOverflow(page, 'composer while recording (phone)');
    await page.keyboard.press('Escape');
    await page.getByTestId('dictation-button').waitFor(SLOW);
    expect(await page.getByTestId('dictation-recording').count()).toBe(0);

    llm.setTranscription(() => ({ error: { status: 500, message: 'GPU on fire' } }));
    try {
      await page.getByTestId('dictation-button').click();
      await page.getByTestId('dictation-recording').waitFor(SLOW);
      // A second of sound first: stopped at once, a busy box's recorder may have nothing to send.
      await expect.poll(() => page.getByTestId('dictation-elapsed').textContent(), SLOW).toBe('0:01');
      await page.getByTestId('dictation-stop').click();
      await page.getByTestId('dictation-error').waitFor(SLOW);
      expect(await page.getByTestId('dictation-error').textContent()).toBe('Transcription failed: The transcription model failed with HTTP 500: GPU on fire');
    } finally {
      llm.setTranscription(SCRIPTED);
    }
    // The cancelled recording never went upstream; the failed one did once. The draft is as it was.
    expect(llm.transcriptions).toHaveLength(1);
    expect(await input.inputValue()).toBe('Draft');
    await page.getByTestId('dictation-button').waitFor();
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  it('says the microphone is blocked when the browser refuses it', async () => {
    const refusing = await launchBrowser({ args: ['--use-fake-device-for-media-stream', '--deny-permission-prompts'] });
    try {
      await logInByBrowser(refusing.page, stack, user);
      await refusing.page.getByTestId('dictation-button').click(SLOW);
      await refusing.page.getByTestId('dictation-error').waitFor(SLOW);
      expect(await refusing.page.getByTestId('dictation-error').textContent()).toBe("Microphone access is blocked. Allow it for this site in the browser's settings, then try again.");
      expect(await refusing.page.getByTestId('dictation-button').isEnabled()).toBe(true);
    } finally {
      await refusing.close();
    }
  });
});
