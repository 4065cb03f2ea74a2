import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';

describe('interactive API docs', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('render the OpenAPI document without requesting anything from another origin, and nothing fails to load', async () => {
    const origin = new URL(stack.url).origin;
    const foreign: string[] = [];
    const failed: string[] = [];
    browser.page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:') && !url.startsWith('about:')) foreign.push(url);
    });
    browser.page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    await browser.page.goto(`${stack.url}/api/docs`);
    await browser.page.getByText('agentq API').first().waitFor({ timeout: 30_000 });
    await browser.page.getByText('/auth/login').first().waitFor({ timeout: 30_000 });
    expect(foreign).toEqual([]);
    // The page links the app's icon: the browser asked for /favicon.ico, a 404, before.
    await browser.page.waitForLoadState('networkidle');
    expect(failed).toEqual([]);
  });
});
