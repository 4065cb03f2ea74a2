/**
 * Chat tags: a tag added in the chat's header (suggested from the user's tags) shows as a chip there
 * and on the sidebar row; a click on the chip searches `tag:name` in the sidebar (on a phone, in the
 * drawer), and × takes it off. Nothing pushes a 390 px page sideways.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, expectNoHorizontalOverflow, logInByApi, logInByBrowser } from './fixtures.ts';

/** The machine is shared: a reload of the list may take seconds. */
const SLOW = { timeout: 15_000 };

describe('chat tags', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let headers: Record<string, string>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    llm = await startFakeLlm({ script: () => ({ text: 'Hello there' }) });
    stack = await startStack();
    await createFakeModel(stack, await logInByApi(stack), llm);
    const user = await stack.createUser();
    headers = await logInByApi(stack, user);
    for (const title of ['Trip notes', 'Budget', 'Holiday plans']) ids[title] = (await createByApi(stack, headers, '/api/sessions', { title })).id;
    // A tag the user already has: the header suggests it.
    const tagged = await fetch(`${stack.url}/api/sessions/${ids['Trip notes']}/tags`, { method: 'PUT', headers, body: JSON.stringify({ tags: ['Travel'] }) });
    expect(tagged.status).toBe(200);
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

  const chips = () => page.getByTestId('chat-tag-search').allTextContents();
  const rowTags = (title: string) => page.getByTestId('session-row').filter({ hasText: title }).getByTestId('session-row-tags').allTextContents();
  const hitTitles = async () => (await page.getByTestId('search-hit').locator('.title').allTextContents()).sort();
  const tagList = async () => ((await (await fetch(`${stack.url}/api/tags`, { headers })).json()) as { items: { name: string; chatCount: number }[] }).items;

  it('adds tags in the header (one suggested), shows them on the row, searches a chip in the sidebar and removes one', async () => {
    await page.goto(`${stack.url}/chat/${ids['Holiday plans']}`);
    await page.getByTestId('chat-tag-add').click();
    const input = page.getByTestId('chat-tag-input');
    await input.fill('tra');
    await expect.poll(() => page.getByTestId('chat-tag-suggestion').allTextContents()).toEqual(['Travel']);
    await input.press('ArrowDown');
    await input.press('Enter');
    await expect.poll(chips).toEqual(['Travel']);
    await input.fill('  Ideas ');
    await input.press('Enter');
    await expect.poll(chips).toEqual(['Ideas', 'Travel']);
    await input.press('Escape');
    expect(await input.count()).toBe(0);
    await expect.poll(() => rowTags('Holiday plans'), SLOW).toEqual(['IdeasTravel']);
    expect(await tagList()).toEqual([{ name: 'Ideas', chatCount: 1 }, { name: 'Travel', chatCount: 2 }]);

    // A chip's click searches its tag: the chats that carry it, and words narrow them.
    await page.getByTestId('chat-tag-search').filter({ hasText: 'Travel' }).click();
    expect(await page.getByTestId('session-search').inputValue()).toBe('tag:Travel');
    await expect.poll(hitTitles, SLOW).toEqual(['Holiday plans', 'Trip notes']);
    await page.getByTestId('session-search').fill('holiday tag:travel');
    await expect.poll(hitTitles, SLOW).toEqual(['Holiday plans']);
    await page.getByTestId('session-search').fill('');
    await page.getByTestId('session-list').waitFor();

    await page.getByRole('button', { name: 'Remove tag Travel' }).click();
    await expect.poll(chips).toEqual(['Ideas']);
    await expect.poll(() => rowTags('Holiday plans'), SLOW).toEqual(['Ideas']);
    expect(await tagList()).toEqual([{ name: 'Ideas', chatCount: 1 }, { name: 'Travel', chatCount: 1 }]);

    // Stored: a fresh load shows them.
    await page.reload();
    await expect.poll(chips).toEqual(['Ideas']);
  });

  it('fits a phone: long tags wrap in the header, and a chip opens the drawer on its search', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${stack.url}/chat/${ids['Budget']}`);
    const long = ['A rather long tag name, 32 chars', 'Quarterly numbers and forecasts', 'Household'];
    for (const name of long) {
      if ((await page.getByTestId('chat-tag-input').count()) === 0) await page.getByTestId('chat-tag-add').click();
      await page.getByTestId('chat-tag-input').fill(name);
      await page.getByTestId('chat-tag-input').press('Enter');
      await expect.poll(chips).toContain(name);
    }
    await expectNoHorizontalOverflow(page, 'chat with long tags on a phone');
    await page.getByTestId('chat-tag-input').press('Escape');

    await page.getByTestId('chat-tag-search').filter({ hasText: 'Household' }).click();
    await expect.poll(() => page.getByTestId('sessions-drawer-toggle').getAttribute('aria-expanded')).toBe('true');
    expect(await page.getByTestId('session-search').inputValue()).toBe('tag:Household');
    await expect.poll(hitTitles, SLOW).toEqual(['Budget']);
    await expect.poll(() => page.getByTestId('search-hit').getByTestId('session-row-tags').textContent()).toBe(long.slice().sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())).join(''));
    await expectNoHorizontalOverflow(page, 'tag search in the drawer on a phone');
  });

  it('renames (merging) and deletes tags on Account → Data', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${stack.url}/account/data`);
    const names = () => page.getByTestId('tag-manager-name').allTextContents();
    await expect.poll(names, SLOW).toEqual(['A rather long tag name, 32 chars', 'Household', 'Ideas', 'Quarterly numbers and forecasts', 'Travel']);

    const ideas = page.getByTestId('tag-manager-row').filter({ hasText: 'Ideas' });
    await ideas.getByTestId('tag-rename').click();
    await page.getByTestId('tag-rename-input').fill('travel');
    await page.getByTestId('tag-rename-input').press('Enter');
    // The row being renamed hides its name: wait for the rename to be saved before reading the list.
    await page.getByTestId('tag-rename-input').waitFor({ state: 'detached', ...SLOW });
    await expect.poll(names, SLOW).toEqual(['A rather long tag name, 32 chars', 'Household', 'Quarterly numbers and forecasts', 'Travel']);
    await expect.poll(() => page.getByTestId('tag-manager-row').filter({ hasText: 'Travel' }).textContent(), SLOW).toContain('Chats: 2');

    await page.getByTestId('tag-manager-row').filter({ hasText: 'Household' }).getByTestId('tag-delete').click();
    await page.getByTestId('tag-delete-confirm').click();
    await page.getByTestId('tag-delete-confirm').waitFor({ state: 'detached', ...SLOW });
    await expect.poll(names, SLOW).toEqual(['A rather long tag name, 32 chars', 'Quarterly numbers and forecasts', 'Travel']);
    expect(await tagList()).toEqual([
      { name: 'A rather long tag name, 32 chars', chatCount: 1 },
      { name: 'Quarterly numbers and forecasts', chatCount: 1 },
      { name: 'Travel', chatCount: 2 },
    ]);
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalOverflow(page, 'tags on Account → Data on a phone');
  });
});
