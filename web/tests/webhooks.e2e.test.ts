import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '@agentq/shared/services';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { expectNoHorizontalOverflow, logInByBrowser } from './fixtures.ts';

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

const SLOW = { timeout: 30_000 };

describe('Account → Webhooks', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;
  // A receiver on loopback (the stack runs with FETCH_ALLOW_PRIVATE_NETWORKS on).
  let receiver: Server;
  let origin: string;
  const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ path: request.url ?? '', headers: request.headers, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    stack = await startStack();
    browser = await launchBrowser();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  for (const viewport of VIEWPORTS) {
    it(`adds an endpoint, shows its secret once, sends a test event the receiver verifies, and lists the delivery (${viewport.name})`, async () => {
      await browser.context.clearCookies();
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      const user = await stack.createUser();
      await logInByBrowser(page, stack, user);
      await page.goto(`${stack.url}/account`);
      await page.getByTestId('account-tab-webhooks').click();
      await page.waitForURL(`${stack.url}/account/webhooks`);
      await page.getByTestId('webhooks-empty').waitFor(SLOW);
      await expectNoHorizontalOverflow(page, `webhooks, empty (${viewport.name})`);

      // A URL that is not http(s) is refused next to the field.
      await page.getByTestId('webhook-new').click();
      await page.getByTestId('webhook-url').fill('ftp://example.com/hooks');
      await page.getByTestId('webhook-form').getByRole('button', { name: 'Create' }).click();
      await page.getByTestId('webhook-url-issue').waitFor(SLOW);
      const path = `/hooks/${viewport.name}`;
      await page.getByTestId('webhook-url').fill(`${origin}${path}`);
      await page.getByTestId('webhook-description').fill('CI notifications');
      await page.getByTestId('webhook-event-approval.requested').check();
      await page.getByTestId('webhook-event-run.failed').uncheck();
      await expectNoHorizontalOverflow(page, `webhook form (${viewport.name})`);
      await page.getByTestId('webhook-form').getByRole('button', { name: 'Create' }).click();

      // The secret, this once.
      await page.getByTestId('webhook-secret-panel').waitFor(SLOW);
      const secret = await page.getByTestId('webhook-secret').inputValue();
      expect(secret).toMatch(/^whsec_/);
      const row = page.locator(`[data-testid="webhook-row"][data-url="${origin}${path}"]`);
      await row.waitFor(SLOW);
      expect(await row.textContent()).toContain('CI notifications');
      expect(await row.textContent()).toContain('approval.requested');
      expect(await row.textContent()).not.toContain('run.failed');
      expect(await row.getByTestId('webhook-enabled').isChecked()).toBe(true);
      await expectNoHorizontalOverflow(page, `webhooks, listed with the secret (${viewport.name})`);
      await page.getByTestId('webhook-secret-dismiss').click();
      await page.reload();
      await row.waitFor(SLOW);
      expect(await page.getByTestId('webhook-secret-panel').count()).toBe(0);
      expect(await page.content()).not.toContain(secret);

      // Send test event: the receiver gets a signed ping, and the log shows it delivered.
      await row.getByTestId('webhook-test').click();
      const delivery = page.getByTestId('webhook-delivery').first();
      await expect.poll(async () => delivery.getAttribute('data-status'), SLOW).toBe('succeeded');
      expect(await delivery.getAttribute('data-event')).toBe('ping');
      expect(await delivery.getByTestId('webhook-delivery-detail').textContent()).toMatch(/Attempts: 1\s*· HTTP 204\s*· \d+ ms/);
      const pings = received.filter((request) => request.path === path);
      expect(pings).toHaveLength(1);
      expect(JSON.parse(pings[0]!.body)).toMatchObject({ type: 'ping' });
      expect(verifyWebhookSignature(secret, pings[0]!.headers as Record<string, string>, pings[0]!.body)).toBe(true);
      await expectNoHorizontalOverflow(page, `webhook deliveries (${viewport.name})`);

      // Redeliver: the same event again, as a second delivery.
      await delivery.getByTestId('webhook-redeliver').click();
      await expect.poll(async () => page.getByTestId('webhook-delivery').count(), SLOW).toBe(2);
      await expect.poll(async () => page.getByTestId('webhook-delivery').first().getAttribute('data-status'), SLOW).toBe('succeeded');
      const again = received.filter((request) => request.path === path);
      expect(again).toHaveLength(2);
      expect(again[1]!.headers['webhook-id']).toBe(again[0]!.headers['webhook-id']);

      // Delete it, after confirming.
      await row.getByTestId('webhook-delete').click();
      await row.getByTestId('webhook-delete-confirm').click();
      await page.getByTestId('webhooks-empty').waitFor(SLOW);
    }, 120_000);
  }
});
