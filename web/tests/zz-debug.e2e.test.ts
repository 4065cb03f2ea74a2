import { it } from 'vitest';
import { startStack } from '../../infra/testing/start-stack.ts';
import { launchBrowser } from './browser.ts';
import { logInByBrowser } from './fixtures.ts';

it('debug', async () => {
  const stack = await startStack();
  const browser = await launchBrowser();
  const page = browser.page;
  const wideList = () => page.evaluate(() => [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 8).map((el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)} ${(el.textContent ?? '').slice(0, 40)}`));
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    const user = await stack.createUser();
    await logInByBrowser(page, stack, user);
    page.on('response', async (r) => { if (r.url().includes('/api/auth')) console.log(r.status(), r.request().method(), r.url(), await r.text().catch(() => '')); });
    await page.goto(`${stack.url}/account`);
    await page.getByTestId('profile-name').fill('Grace Hopper');
    await page.getByTestId('profile-save').click();
    await page.waitForTimeout(1000);
    await page.getByTestId('password-current').fill('not my password');
    await page.getByTestId('password-new').fill('brand-new-password');
    await page.getByTestId('password-confirm').fill('brand-new-password');
    await page.getByTestId('password-submit').click();
    await page.waitForTimeout(1000);
    await page.getByTestId('password-current').fill(user.password);
    await page.getByTestId('password-confirm').fill('something else');
    await page.getByTestId('password-submit').click();
    await page.waitForTimeout(500);
    await page.getByTestId('password-confirm').fill('brand-new-password');
    await page.getByTestId('password-submit').click();
    await page.waitForTimeout(2000);
    console.log(await page.locator('main').innerText());
    await page.goto(`${stack.url}/account/tokens`);
    await page.getByTestId('token-name').fill('CI pipeline');
    await page.getByTestId('token-create').click();
    await page.waitForTimeout(1500);
    console.log('tokens', await wideList());
  } finally {
    await browser.close();
    await stack.stop();
  }
}, 120_000);
