import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { FakeLlm } from '../../infra/fake-llm/server.ts';
import type { Stack } from '../../infra/testing/start-stack.ts';

export type Credentials = { email: string; password: string };

/** Logs in through the API; the headers carry the session cookie, for `fetch` calls as that user. */
export async function logInByApi(stack: Stack, credentials: Credentials = stack.admin): Promise<{ cookie: string; 'content-type': string }> {
  const login = await fetch(`${stack.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) });
  expect(login.status, await login.clone().text()).toBe(200);
  return { cookie: login.headers.get('set-cookie')?.split(';')[0] ?? '', 'content-type': 'application/json' };
}

/** POSTs `body` as JSON, expects 201 Created and returns the created resource. */
export async function createByApi<T = { id: string }>(stack: Stack, headers: Record<string, string>, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${stack.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as T;
}

/** Registers the fake LLM as the model "Fake model" (`fake-model`). */
export function createFakeModel(stack: Stack, headers: Record<string, string>, llm: FakeLlm, name = 'Fake model'): Promise<{ id: string }> {
  return createByApi(stack, headers, '/api/models', { name, baseUrl: llm.url, modelId: 'fake-model', apiKey: 'sk-fake' });
}

/** Fills and submits the login form the page is showing (after a redirect to /login, say). */
export async function submitLogin(page: Page, { email, password }: Credentials): Promise<void> {
  await page.getByTestId('login-email').fill(email);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
}

/** Logs in through the login page and waits for the chat page it lands on. */
export async function logInByBrowser(page: Page, stack: Stack, credentials: Credentials = stack.admin): Promise<void> {
  await page.goto(`${stack.url}/login`);
  await submitLogin(page, credentials);
  await page.waitForURL(`${stack.url}/chat`);
}

/** An HTTP server on loopback (which the stack's fetch tool may reach); `url` has no trailing slash. */
export async function startLoopback(listener: RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The newest assistant turn of the open chat. */
export function lastAssistant(page: Page): Locator {
  return page.getByTestId('assistant-message').last();
}

/** Sends in the open session once no run is active, and waits for the new assistant turn. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.getByTestId('send-button').waitFor();
  const turns = await page.getByTestId('assistant-message').count();
  await page.getByTestId('message-input').fill(text);
  await page.getByTestId('message-input').press('Enter');
  await expect.poll(() => page.getByTestId('assistant-message').count()).toBe(turns + 1);
}

/** Waits until the newest assistant turn has this run status. */
export async function waitForRunStatus(page: Page, status: string, timeout = 30_000): Promise<void> {
  await expect.poll(() => lastAssistant(page).getAttribute('data-status'), { timeout }).toBe(status);
}

/**
 * The page is no wider than the viewport: nothing pushes it sideways (`where` names the page in a
 * failure). With `scroller` (a box that scrolls sideways, such as a table's card), that box must fit
 * its content too: a table that only scrolls inside its card still makes a phone user swipe.
 */
export async function expectNoHorizontalOverflow(page: Page, where?: string, scroller?: Locator): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth, `${where ?? page.url()}: page wider than the viewport`).toBeLessThanOrEqual(innerWidth);
  if (scroller) {
    const box = await scroller.evaluate((element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }));
    expect(box.scrollWidth, `${where ?? page.url()}: content scrolls sideways inside its box`).toBeLessThanOrEqual(box.clientWidth);
  }
}
