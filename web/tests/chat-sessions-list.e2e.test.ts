/**
 * A user with more chats than one page: the sidebar lists the 50 most recently active, "Show older
 * chats" lists 50 more, and the list keeps every chat it showed when a send moves one to the top;
 * it is in sections by last activity (Today, Yesterday, …).
 * (It used to stop at 200 with no way to reach the rest; an API client, or the load harness, makes
 * that many in minutes.)
 */
import type { Page } from 'playwright-core';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, logInByApi, logInByBrowser, sendMessage, waitForRunStatus } from './fixtures.ts';

const CHATS = 60;
const titleOf = (index: number) => `Chat ${String(index).padStart(2, '0')}`;
/** The machine is shared: a reload of the list may take seconds. */
const SLOW = { timeout: 15_000 };

describe('a long list of chats', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    llm = await startFakeLlm({ script: () => ({ text: 'Hello there' }) });
    stack = await startStack();
    await createFakeModel(stack, await logInByApi(stack), llm);
    const user = await stack.createUser();
    const headers = await logInByApi(stack, user);
    // One after another, so "Chat 60" is the most recently active.
    for (let index = 1; index <= CHATS; index += 1) ids.set(titleOf(index), (await createByApi(stack, headers, '/api/sessions', { title: titleOf(index) })).id);
    browser = await launchBrowser();
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await logInByBrowser(page, stack, user);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await llm?.close();
  });

  const listed = () => page.getByTestId('session-link').locator('.title').allTextContents();

  it('lists the 50 most recent chats, then the older ones on "Show older chats"', async () => {
    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('session-list').waitFor();
    await expect.poll(listed, SLOW).toEqual(Array.from({ length: 50 }, (_, index) => titleOf(CHATS - index)));
    await page.getByTestId('sessions-more').click();
    await expect.poll(listed, SLOW).toEqual(Array.from({ length: CHATS }, (_, index) => titleOf(CHATS - index)));
    expect(await page.getByTestId('sessions-more').count()).toBe(0);
  });

  it('keeps every chat it showed when a send moves the oldest to the top, and a new chat joins them', async () => {
    await page.getByTestId('session-link').filter({ hasText: titleOf(1) }).click();
    await page.waitForURL(`${stack.url}/chat/${ids.get(titleOf(1))}`);
    await sendMessage(page, 'Are you there?');
    await waitForRunStatus(page, 'succeeded');
    await expect.poll(async () => (await listed())[0], SLOW).toBe(titleOf(1));
    expect(await listed()).toEqual([titleOf(1), ...Array.from({ length: CHATS - 1 }, (_, index) => titleOf(CHATS - index))]);

    await page.getByTestId('new-chat').click();
    await page.waitForURL(`${stack.url}/chat`);
    await page.getByTestId('message-input').fill('A brand new question');
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
    await waitForRunStatus(page, 'succeeded');
    await expect.poll(async () => (await listed()).length, SLOW).toBe(CHATS + 1);
    expect((await listed())[0]).toBe('A brand new question');
  });

  it('names a chat older than the list shows on a phone, from the chat itself', async () => {
    // A fresh page load lists one page again: "Chat 05" is not among the 50 most recent.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${stack.url}/chat/${ids.get(titleOf(5))}`);
    await page.getByTestId('session-title').waitFor({ state: 'attached' });
    expect(await page.getByTestId('mobile-title').textContent()).toBe(titleOf(5));
    expect(await page.getByTestId('session-link').count()).toBe(50);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('pins an old chat above the rest, where it stays through sends and reloads, and unpins it', async () => {
    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('sessions-more').click();
    const row = page.locator(`[data-testid="session-row"][data-session-id="${ids.get(titleOf(3))}"]`);
    await row.getByTestId('session-menu').click();
    expect(await row.getByTestId('pin-session').innerText()).toBe('Pin to the top');
    await row.getByTestId('pin-session').click();
    const pinnedList = page.getByTestId('pinned-list');
    await expect.poll(() => pinnedList.getByTestId('session-link').locator('.title').allTextContents(), SLOW).toEqual([titleOf(3)]);
    // Listed once: pinned, not also among the recent ones.
    expect(await page.getByTestId('session-list').getByTestId('session-link').filter({ hasText: titleOf(3) }).count()).toBe(0);

    // Newer activity elsewhere does not push it down, and a fresh load lists it first.
    await page.getByTestId('session-list').getByTestId('session-link').filter({ hasText: titleOf(60) }).click();
    // The new-chat page has a message box too: send only once the chat has opened (CI once typed
    // into the page it was leaving, and the message went with it).
    await page.waitForURL(`${stack.url}/chat/${ids.get(titleOf(60))}`);
    await page.getByTestId('conversation-empty').waitFor();
    await sendMessage(page, 'Still here?');
    await waitForRunStatus(page, 'succeeded');
    await page.reload();
    await expect.poll(() => pinnedList.getByTestId('session-link').locator('.title').allTextContents(), SLOW).toEqual([titleOf(3)]);
    expect((await listed())[0]).toBe(titleOf(3));
    expect((await listed())[1]).toBe(titleOf(60));

    await pinnedList.getByTestId('session-menu').click();
    expect(await pinnedList.getByTestId('pin-session').innerText()).toBe('Unpin');
    await pinnedList.getByTestId('pin-session').click();
    await pinnedList.waitFor({ state: 'detached', timeout: 15_000 });
  });

  it('shows the list in sections by last activity: Today, Yesterday, the previous 7 and 30 days, then months', async () => {
    // Chats 10…13 moved back in time (as days pass), newest first still.
    const database = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
    const daysAgo = { [titleOf(13)]: 1, [titleOf(12)]: 4, [titleOf(11)]: 20, [titleOf(10)]: 70 };
    try {
      for (const [title, days] of Object.entries(daysAgo)) {
        await database`update chat_sessions set updated_at = now() - make_interval(days => ${days}) where id = ${ids.get(title)!}`;
      }
    } finally {
      await database.end();
    }
    const old = new Date(Date.now() - 70 * 24 * 60 * 60 * 1000);
    const oldMonth = old.toLocaleDateString('en', old.getFullYear() === new Date().getFullYear() ? { month: 'long' } : { month: 'long', year: 'numeric' });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('sessions-more').click();
    await expect.poll(() => page.getByTestId('session-group').allTextContents(), SLOW).toEqual(['Today', 'Yesterday', 'Previous 7 days', 'Previous 30 days', oldMonth]);
    // Each chat under its section: the section's heading is the last one above the chat.
    const sectionOf = (title: string) =>
      page.getByTestId('session-list').evaluate((list, wanted) => {
        let heading = '';
        for (const item of list.children) {
          const group = item.querySelector('[data-testid="session-group"]');
          if (group) heading = group.textContent ?? '';
          else if (item.querySelector('.title')?.textContent === wanted) return heading;
        }
        return undefined;
      }, title);
    expect(await sectionOf(titleOf(60))).toBe('Today');
    expect(await sectionOf(titleOf(13))).toBe('Yesterday');
    expect(await sectionOf(titleOf(12))).toBe('Previous 7 days');
    expect(await sectionOf(titleOf(11))).toBe('Previous 30 days');
    expect(await sectionOf(titleOf(10))).toBe(oldMonth);
  });
});
