import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm } from '../../infra/fake-llm/server.ts';
import { messageText, type ChatCompletionRequest } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createFakeModel, expectNoHorizontalOverflow, logInByApi, logInByBrowser, submitLogin, waitForRunStatus } from './fixtures.ts';

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** The text of an element once it is there (a slow save may take seconds on a busy machine). */
async function textOf(page: Page, testId: string): Promise<string | null> {
  const element = page.getByTestId(testId);
  await element.waitFor({ timeout: 30_000 });
  return element.textContent();
}

const SLOW = { timeout: 30_000 };

/** The system message of the model request that asked `question` ('' without one). */
function systemPromptOf(requests: ChatCompletionRequest[], question: string): string {
  const request = requests.find((entry) => entry.messages.some((message) => message.role === 'user' && messageText(message) === question));
  expect(request, `no model request asked "${question}"`).toBeDefined();
  const system = request!.messages.find((message) => message.role === 'system');
  return system ? messageText(system) : '';
}

/** The element is fully inside the viewport horizontally (not scrolled out of a table). */
async function expectInView(page: Page, testId: string, nth = 0) {
  const box = await page.getByTestId(testId).nth(nth).boundingBox();
  const width = page.viewportSize()!.width;
  expect(box, testId).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(width);
}

describe('self-service account and admin users', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchBrowser();
    page = browser.page;
    // The token is copied to the clipboard in one test.
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  async function signOut() {
    await browser.context.clearCookies();
  }

  for (const viewport of VIEWPORTS) {
    describe(`at ${viewport.width} px`, () => {
      beforeAll(async () => {
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
      });

      it("shows every section of the main nav and the account's links on screen", async () => {
        await signOut();
        await logInByBrowser(page, stack);
        // On a phone the sections had been squeezed beside the account and scrolled out of sight.
        const everyLink = ['nav-chat', 'nav-documents', 'nav-approvals', 'nav-admin', 'nav-user', 'logout-button'];
        for (const testId of everyLink) await expectInView(page, testId);
        await expectNoHorizontalOverflow(page);
        if (viewport.name !== 'phone') return;
        // The narrowest phones too (320 px): the last section was cut at the screen's edge.
        await page.setViewportSize({ width: 320, height: 640 });
        for (const testId of everyLink) await expectInView(page, testId);
        await expectNoHorizontalOverflow(page);
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
      });

      it('changes the name and the password (needing the current one); the new password signs in', async () => {
        const user = await stack.createUser();
        await signOut();
        await logInByBrowser(page, stack, user);
        await page.getByTestId('nav-user').click();
        await page.waitForURL(`${stack.url}/account`);
        await expectNoHorizontalOverflow(page);

        await page.getByTestId('profile-name').fill('Grace Hopper');
        await page.getByTestId('profile-save').click();
        expect(await textOf(page, 'profile-notice')).toContain('Saved your profile');
        await expect.poll(() => page.getByTestId('nav-user').textContent(), SLOW).toContain('Grace Hopper');

        // A wrong current password: one message, next to that field, and a short summary.
        await page.getByTestId('password-current').fill('not my password');
        await page.getByTestId('password-new').fill('brand-new-password');
        await page.getByTestId('password-confirm').fill('brand-new-password');
        await page.getByTestId('password-submit').click();
        expect(await textOf(page, 'currentPassword-issue')).toBe('The current password is not correct');
        expect(await page.getByTestId('password-error').textContent()).toBe('Check the highlighted field.');
        expect(await page.getByText('The current password is not correct').count()).toBe(1);

        // Mismatched repeat is caught before the server.
        await page.getByTestId('password-current').fill(user.password);
        await page.getByTestId('password-confirm').fill('something else');
        await page.getByTestId('password-submit').click();
        expect(await textOf(page, 'confirmPassword-issue')).toBe('The two new passwords are not the same.');

        await page.getByTestId('password-confirm').fill('brand-new-password');
        await page.getByTestId('password-submit').click();
        expect(await textOf(page, 'password-notice')).toContain('Password changed');
        await expectNoHorizontalOverflow(page);

        const oldLogin = await fetch(`${stack.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(user) });
        expect(oldLogin.status).toBe(401);
        await signOut();
        await logInByBrowser(page, stack, { email: user.email, password: 'brand-new-password' });
      });

      it('creates an API token shown once, copies it, sees its last use, and revokes it', async () => {
        const user = await stack.createUser();
        await signOut();
        await logInByBrowser(page, stack, user);
        await page.goto(`${stack.url}/account/tokens`);
        await page.getByTestId('tokens-empty').waitFor();

        // An empty name gets a human message next to the field.
        await page.getByTestId('token-create').click();
        expect(await textOf(page, 'token-name-issue')).toBe('Enter a name');

        await page.getByTestId('token-name').fill('CI pipeline');
        await page.getByTestId('token-expiry').selectOption('30');
        await page.getByTestId('token-create').click();
        const secret = await page.getByTestId('token-secret').inputValue();
        expect(secret).toMatch(/^aq_/);
        await page.getByTestId('token-copy').click();
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

        const row = page.getByTestId('token-row').filter({ hasText: 'CI pipeline' });
        await row.waitFor();
        expect(await row.getByTestId('token-row-last-used').textContent()).toBe('Never');
        expect(await row.textContent()).not.toContain(secret);
        await expectNoHorizontalOverflow(page);
        await expectInView(page, 'token-revoke');

        const me = await fetch(`${stack.url}/api/auth/me`, { headers: { authorization: `Bearer ${secret}` } });
        expect(me.status).toBe(200);
        // Shown once: after a reload only the prefix is left, and the last use is filled in.
        await page.reload();
        expect(await page.getByTestId('token-secret').count()).toBe(0);
        expect(await page.getByTestId('token-row').first().getByTestId('token-row-last-used').textContent()).not.toBe('Never');

        await page.getByTestId('token-revoke').click();
        await page.getByTestId('token-revoke-confirm').click();
        expect(await textOf(page, 'tokens-notice')).toContain('Revoked CI pipeline');
        await page.getByTestId('tokens-empty').waitFor();
        expect((await fetch(`${stack.url}/api/auth/me`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
      });

      it('an admin creates a user, makes them admin and back, resets their password and disables them', async () => {
        await signOut();
        await logInByBrowser(page, stack);
        await page.goto(`${stack.url}/admin`);
        await page.getByTestId('admin-entry-users').click();
        await page.waitForURL(`${stack.url}/admin/users`);

        const email = `new-${viewport.name}-${Date.now()}@test.local`;
        await page.getByTestId('user-new').click();
        await page.getByTestId('user-form-save').click();
        // Every empty field says what it needs, once, next to it.
        expect(await textOf(page, 'user-email-issue')).toBe('Enter an email address, e.g. ada@example.com');
        expect(await page.getByTestId('user-name-issue').textContent()).toBe('Enter a name');
        expect(await page.getByTestId('user-password-issue').textContent()).toBe('Password must be at least 8 characters');
        expect(await page.getByTestId('user-form-error').textContent()).toBe('Check the highlighted fields: 3 need attention.');
        await expectNoHorizontalOverflow(page);

        await page.getByTestId('user-email').fill(email);
        await page.getByTestId('user-name').fill('Katherine Johnson');
        await page.getByTestId('user-password').fill('first-password-1');
        await page.getByTestId('user-form-save').click();
        expect(await textOf(page, 'users-notice')).toContain('Created Katherine Johnson');

        const row = page.locator(`[data-testid="user-row"][data-user-email="${email}"]`);
        // Nor does the table scroll sideways inside its card: on a phone each user is a stacked card.
        await expectNoHorizontalOverflow(page, `Admin → Users at ${viewport.width} px`, page.getByTestId('users-table').locator('..'));
        // The row's buttons stay on screen.
        for (const button of ['user-reset-password', 'user-toggle-role', 'user-toggle-disabled', 'user-delete']) {
          const box = await row.getByTestId(button).boundingBox();
          expect(box!.x + box!.width, button).toBeLessThanOrEqual(viewport.width);
          expect(box!.x, button).toBeGreaterThanOrEqual(0);
        }

        await row.getByTestId('user-toggle-role').click();
        await expect.poll(() => row.getByTestId('user-row-role').textContent(), SLOW).toBe('Admin');
        await row.getByTestId('user-toggle-role').click();
        await expect.poll(() => row.getByTestId('user-row-role').textContent(), SLOW).toBe('User');

        await row.getByTestId('user-reset-password').click();
        await page.getByTestId('user-password').fill('second-password-2');
        await page.getByTestId('user-form-save').click();
        await expect.poll(() => page.getByTestId('users-notice').textContent(), SLOW).toContain('Set a new password for Katherine Johnson');
        const login = (password: string) => fetch(`${stack.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
        expect((await login('first-password-1')).status).toBe(401);
        expect((await login('second-password-2')).status).toBe(200);

        await row.getByTestId('user-toggle-disabled').click();
        await expect.poll(() => row.getByTestId('user-row-status').locator('.pill').textContent(), SLOW).toBe('Disabled');
        expect((await login('second-password-2')).status).toBe(401);

        // Signed in as the disabled user: the login page refuses.
        await signOut();
        await page.goto(`${stack.url}/login`);
        await submitLogin(page, { email, password: 'second-password-2' });
        expect(await textOf(page, 'login-error')).toContain('incorrect');
      });
    });
  }

  it('an admin finds users past the first page: newest first, a page more on request, kept through a change, and by search', async () => {
    await signOut();
    await page.setViewportSize({ width: 1280, height: 900 });
    const admin = await logInByApi(stack);
    const tag = `crowd${Date.now()}`;
    // 60 users made one after another: the first of them ends up on the second page of 50.
    const crowd: { id: string; email: string }[] = [];
    for (let index = 0; index < 60; index++) {
      const email = `${tag}-${String(index).padStart(2, '0')}@test.local`;
      const response = await fetch(`${stack.url}/api/users`, { method: 'POST', headers: admin, body: JSON.stringify({ email, name: index === 0 ? 'Grace Hopper' : `Crowd ${index}`, password: 'crowd-password-1' }) });
      expect(response.status).toBe(201);
      crowd.push({ id: ((await response.json()) as { id: string }).id, email });
    }
    const total = ((await (await fetch(`${stack.url}/api/users?limit=1`, { headers: admin })).json()) as { total: number }).total;
    expect(total).toBeGreaterThan(60);

    await logInByBrowser(page, stack);
    await page.goto(`${stack.url}/admin/users`);
    const rows = page.getByTestId('user-row');
    await expect.poll(() => rows.count(), SLOW).toBe(50);
    expect(await page.getByTestId('users-count').textContent()).toContain(`${total} in all, newest first.`);
    expect(await rows.first().getAttribute('data-user-email')).toBe(crowd[59]!.email);
    const first = page.locator(`[data-testid="user-row"][data-user-email="${crowd[0]!.email}"]`);
    expect(await first.count()).toBe(0);

    await page.getByTestId('users-more').click();
    await expect.poll(() => rows.count(), SLOW).toBe(Math.min(total, 100));
    await first.waitFor();
    // A change reloads the list: what was shown stays shown.
    await first.getByTestId('user-toggle-role').click();
    await expect.poll(() => first.getByTestId('user-row-role').textContent(), SLOW).toBe('Admin');
    expect(await rows.count()).toBe(Math.min(total, 100));

    // Every word must match, in the name or the email (other tests' users may be called Grace too).
    await page.getByTestId('users-search-input').fill(`grace ${tag}`);
    await page.getByTestId('users-search-submit').click();
    await page.waitForURL(`${stack.url}/admin/users?q=grace+${tag}`);
    await expect.poll(() => rows.count(), SLOW).toBe(1);
    expect(await rows.first().getAttribute('data-user-email')).toBe(crowd[0]!.email);
    expect(await page.getByTestId('users-count').textContent()).toContain(`1 match “grace ${tag}”`);
    expect(await page.getByTestId('users-more').count()).toBe(0);

    await page.getByTestId('users-search-input').fill(`${tag}-nobody`);
    await page.getByTestId('users-search-submit').click();
    expect(await textOf(page, 'users-empty')).toBe(`No user matches “${tag}-nobody”.`);

    await page.getByTestId('users-search-clear').click();
    await page.waitForURL(`${stack.url}/admin/users`);
    // A new search starts again from the first page.
    await expect.poll(() => rows.count(), SLOW).toBe(50);
  });

  it('saves custom instructions on the Account page: the next chat sends them to the model, and once cleared it does not', async () => {
    const llm = await startFakeLlm({ script: () => ({ text: 'Noted.' }) });
    try {
      await createFakeModel(stack, await logInByApi(stack), llm);
      const user = await stack.createUser();
      await signOut();
      await page.setViewportSize({ width: 1280, height: 900 });
      await logInByBrowser(page, stack, user);
      await page.goto(`${stack.url}/account`);
      const input = page.getByTestId('instructions-input');
      expect(await input.inputValue()).toBe('');
      expect(await page.getByText('Every chat of yours starts with this, whatever the agent.').count()).toBe(1);

      // Too long: the counter says so and the API's refusal sits next to the field; nothing is saved.
      await input.fill('x'.repeat(4_001));
      expect(await page.getByTestId('instructions-count').textContent()).toBe('4,001 / 4,000 characters');
      await page.getByTestId('instructions-save').click();
      expect(await textOf(page, 'customInstructions-issue')).toBe('Use at most 4,000 characters');

      const instructions = "I'm a data engineer.\nAnswer briefly, metric units.";
      await input.fill(instructions);
      expect(await page.getByTestId('instructions-count').textContent()).toBe(`${instructions.length} / 4,000 characters`);
      await page.getByTestId('instructions-save').click();
      expect(await textOf(page, 'instructions-notice')).toContain('Saved your custom instructions');
      expect(await page.getByTestId('customInstructions-issue').count()).toBe(0);
      await expectNoHorizontalOverflow(page);
      await page.reload();
      await expect.poll(() => page.getByTestId('instructions-input').inputValue(), SLOW).toBe(instructions);

      const ask = async (question: string) => {
        await page.goto(`${stack.url}/chat`);
        await page.getByTestId('message-input').fill(question);
        await page.getByTestId('message-input').press('Enter');
        await page.getByTestId('assistant-message').first().waitFor(SLOW);
        await waitForRunStatus(page, 'succeeded');
        return systemPromptOf(llm.requests, question);
      };
      expect(await ask('How far is Lyon from Paris?')).toContain(`## About the user and how they want answers\n${instructions}`);

      await page.goto(`${stack.url}/account`);
      await page.getByTestId('instructions-input').fill('');
      await page.getByTestId('instructions-save').click();
      expect(await textOf(page, 'instructions-notice')).toBe('Cleared your custom instructions.');
      const cleared = await ask('And from Marseille?');
      expect(cleared).not.toContain('About the user');
      expect(cleared).not.toContain('data engineer');
    } finally {
      await llm.close();
    }
  }, 120_000);

  it('chooses light, dark or the system theme on the Account page: applied at once, rendered by the server on the next page, white paper when printed', async () => {
    const user = await stack.createUser();
    await signOut();
    await page.setViewportSize({ width: 1280, height: 900 });
    await logInByBrowser(page, stack, user);
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const LIGHT = 'rgb(246, 247, 249)';
    const DARK = 'rgb(15, 18, 22)';
    try {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`${stack.url}/account`);
      expect(await page.getByTestId('profile-theme-system').isChecked()).toBe(true);
      expect(await background()).toBe(LIGHT);

      await page.getByTestId('profile-theme-dark').check();
      await expect.poll(background).toBe(DARK);
      // The next page comes dark from the server, before any script runs.
      const html = await (await page.request.get(`${stack.url}/chat`)).text();
      expect(html).toMatch(/<html data-theme="dark" /);
      await page.goto(`${stack.url}/chat`);
      expect(await background()).toBe(DARK);
      // Printed, it is on white with dark text.
      await page.emulateMedia({ media: 'print' });
      expect(await page.evaluate(() => getComputedStyle(document.body).color)).toBe('rgb(27, 31, 36)');
      await page.emulateMedia({ media: 'screen' });

      // Light holds against a dark system; the system's choice follows it again.
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.goto(`${stack.url}/account`);
      await page.getByTestId('profile-theme-light').check();
      await expect.poll(background).toBe(LIGHT);
      await page.getByTestId('profile-theme-system').check();
      await expect.poll(background).toBe(DARK);
      await page.reload();
      expect(await page.getByTestId('profile-theme-system').isChecked()).toBe(true);
      expect(await (await page.request.get(`${stack.url}/chat`)).text()).not.toContain('data-theme=');
    } finally {
      await page.emulateMedia({ colorScheme: 'light', media: 'screen' });
    }
  });

  it('a non-admin opening the queue board or an admin page gets the styled 403 page', async () => {
    const user = await stack.createUser();
    await signOut();
    await page.setViewportSize({ width: 1280, height: 900 });
    await logInByBrowser(page, stack, user);
    for (const path of ['/admin/queues', '/admin/users']) {
      await page.goto(`${stack.url}${path}`);
      await page.getByTestId('error-panel').waitFor();
      expect(await page.getByTestId('error-panel').textContent()).toContain('Forbidden');
      expect(await page.getByTestId('error-message').textContent()).toBe('This area is for administrators only.');
      // The app's header is still there: the user can go back.
      await page.getByTestId('main-nav').waitFor();
    }
    const api = await logInByApi(stack, user);
    expect((await fetch(`${stack.url}/api/users`, { headers: api })).status).toBe(403);
  });
});
