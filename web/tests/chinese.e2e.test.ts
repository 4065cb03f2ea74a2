import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { en } from '../src/lib/i18n/messages/en.ts';
import { zh } from '../src/lib/i18n/messages/zh.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { logInByBrowser } from './fixtures.ts';

/** The English catalog texts a Chinese page must not show (those whose Chinese differs). */
const ENGLISH_ONLY = Object.entries(en)
  .filter(([key, text]) => text !== zh[key as keyof typeof zh] && !text.includes('{') && text.length >= 4)
  .map(([, text]) => text);

async function englishLeft(page: Page): Promise<string[]> {
  // Names that come from the server's tool registry are data, marked translate="no" like any proper name.
  const text = await page.evaluate(() => {
    const hidden = [...document.querySelectorAll<HTMLElement>('[translate="no"]')];
    for (const element of hidden) element.style.display = 'none';
    const visible = document.body.innerText;
    for (const element of hidden) element.style.display = '';
    return visible;
  });
  return ENGLISH_ONLY.filter((phrase) => new RegExp(`(^|[^A-Za-z])${phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z])`).test(text));
}

const PAGES = ['/admin', '/admin/users', '/admin/models', '/admin/agents', '/admin/tools', '/account', '/account/tokens', '/documents', '/approvals'];

describe('Chinese UI', () => {
  let stack: Stack;
  let browser: LaunchedBrowser | undefined;

  beforeAll(async () => {
    stack = await startStack();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  for (const width of [1280, 390]) {
    it(`switching to 中文 translates the whole UI and is remembered for the account, at ${width} px`, async () => {
      const user = await stack.createUser('admin');
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

      for (const path of PAGES) {
        await page.goto(`${stack.url}${path}`);
        await page.locator('h1').first().waitFor();
        expect(await englishLeft(page), path).toEqual([]);
        expect(await page.locator('h1').first().textContent(), path).toMatch(/[\u4e00-\u9fff]/);
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
        expect(scrollWidth, path).toBeLessThanOrEqual(innerWidth);
      }
      // A form error in Chinese too.
      await page.goto(`${stack.url}/admin/users`);
      await page.getByTestId('user-new').click();
      await page.getByTestId('user-form-save').click();
      await expect.poll(() => page.getByTestId('user-form-error').textContent(), { timeout: 15_000 }).toBe('请检查标出的字段：有 3 处需要修改。');
      await page.getByTestId('user-form-cancel').click();

      // The account remembers it: a fresh browser that prefers English opens in Chinese after sign-in.
      await browser.close();
      browser = await launchBrowser({ locale: 'en-US' });
      await browser.page.setViewportSize({ width, height: 900 });
      await logInByBrowser(browser.page, stack, user);
      await expect.poll(() => browser!.page.getByTestId('nav-chat').textContent()).toContain('对话');
      await browser.close();
      browser = undefined;
    });
  }

  it('a browser that prefers Chinese gets Chinese before anyone chose, from the login page on', async () => {
    browser = await launchBrowser({ locale: 'zh-CN' });
    await browser.page.goto(`${stack.url}/login`);
    expect(await browser.page.getByTestId('login-submit').textContent()).toContain('登录');
    await logInByBrowser(browser.page, stack);
    expect(await browser.page.getByTestId('nav-documents').textContent()).toContain('文档');
    await browser.close();
    browser = undefined;
  });
});
