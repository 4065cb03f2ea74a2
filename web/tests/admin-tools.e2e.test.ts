import type { IncomingHttpHeaders } from 'node:http';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { FAKE_SEARCH_KEY, startFakeSearchProvider } from '../../shared/src/tools/web-search/test-server.ts';
import { logInByBrowser, startLoopback } from './fixtures.ts';

const LOOPBACK_HTML =
  '<!doctype html><html><head><title>Loopback</title></head><body>' +
  '<h1>Hello from loopback</h1><p>Served to the <strong>fetch</strong> tool.</p><ul><li>first</li><li>second</li></ul>' +
  '</body></html>';

type ToolView = { id: string; slug: string; enabled: boolean; config: Record<string, unknown> };

describe('admin tools UI', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;
  let loopback: Awaited<ReturnType<typeof startLoopback>>;
  let loopbackUrl: string;
  const loopbackRequests: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    // The page the fetch tool reads: on loopback, which the stack allows (FETCH_ALLOW_PRIVATE_NETWORKS=1).
    loopback = await startLoopback((request, response) => {
      loopbackRequests.push(request.headers);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(LOOPBACK_HTML);
    });
    loopbackUrl = `${loopback.url}/page`;

    stack = await startStack();
    browser = await launchBrowser();
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await logInByBrowser(page, stack);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await loopback?.close();
  });

  /** The API's view of a tool, read with the browser's session cookie. */
  async function apiTool(slug: string): Promise<ToolView> {
    const response = await page.request.get(`${stack.url}/api/agent-tools`);
    expect(response.status()).toBe(200);
    const { items } = (await response.json()) as { items: ToolView[] };
    const tool = items.find((candidate) => candidate.slug === slug);
    if (!tool) throw new Error(`no tool ${slug} in ${JSON.stringify(items.map((item) => item.slug))}`);
    return tool;
  }

  function row(slug: string): Locator {
    return page.getByTestId(`tool-row-${slug}`);
  }

  async function openTools() {
    await page.goto(`${stack.url}/admin/tools`);
    await page.getByTestId('tool-new').waitFor();
  }

  async function openEditor(slug: string) {
    await row(slug).getByTestId('tool-action-edit').click();
    await page.getByTestId('tool-editor').waitFor();
  }

  async function rawConfig(): Promise<Record<string, unknown>> {
    return JSON.parse(await page.getByTestId('config-raw').inputValue()) as Record<string, unknown>;
  }

  async function runExecution() {
    await page.getByTestId('execute-run').click();
    await page.getByTestId('execute-running').waitFor({ state: 'detached', timeout: 30_000 });
  }

  /** A call that needs approval stops at the confirm step; confirming runs it. */
  async function confirmExecution() {
    await page.getByTestId('execute-confirm').waitFor();
    expect(await page.getByTestId('execute-result').count()).toBe(0);
    await page.getByTestId('execute-confirm-run').click();
    await page.getByTestId('execute-result').waitFor({ timeout: 30_000 });
  }

  it('creates a fetch tool through the generated config form', async () => {
    await page.goto(`${stack.url}/admin`);
    await page.getByTestId('admin-entry-tools').click();
    await page.waitForURL(`${stack.url}/admin/tools`);
    await page.getByTestId('tools-empty').waitFor();

    await page.getByTestId('tool-new').click();
    const editor = page.getByTestId('tool-editor');
    await editor.waitFor();
    await page.getByTestId('tool-name').fill('Loopback page');
    expect(await page.getByTestId('tool-slug').inputValue()).toBe('loopback_page');
    await page.getByTestId('tool-description').fill('Reads the test page.');
    await page.getByTestId('tool-type').selectOption('fetch');

    // Every field comes from the type's JSON Schema, pre-filled with its defaults, with help text.
    expect(await page.getByTestId('config-field-timeout').inputValue()).toBe('10000');
    expect(await page.getByTestId('config-field-allowedDomains').inputValue()).toBe('*');
    expect(await editor.textContent()).toContain('Milliseconds for the whole fetch');
    expect(await page.getByTestId('tool-input-schema').textContent()).toContain('"url"');

    await page.getByTestId('config-field-parseMode').selectOption({ label: 'json' });
    await page.getByTestId('config-field-parseMode').selectOption({ label: 'markdown' });
    await page.getByTestId('config-field-timeout').fill('5000');
    await page.getByTestId('config-field-maxResponseSize').fill('50000');
    await page.getByTestId('config-field-allowedDomains').fill('127.0.0.1\nexample.com');
    await page.getByTestId('config-field-defaultHeaders-add').click();
    await page.getByTestId('config-field-defaultHeaders-key-0').fill('x-agentq-test');
    await page.getByTestId('config-field-defaultHeaders-value-0').fill('from-the-form');

    // The raw JSON tab shows the very config the form built.
    await page.getByTestId('config-tabs-raw').click();
    expect(await rawConfig()).toMatchObject({ parseMode: 'markdown', timeout: 5000, allowedDomains: ['127.0.0.1', 'example.com'] });
    await page.getByTestId('config-tabs-form').click();
    expect(await page.getByTestId('config-field-timeout').inputValue()).toBe('5000');

    await page.getByTestId('tool-editor-save').click();
    await editor.waitFor({ state: 'detached' });
    await row('loopback_page').waitFor();
    expect(await row('loopback_page').textContent()).toContain('Web fetch');

    const saved = await apiTool('loopback_page');
    expect(saved.enabled).toBe(true);
    expect(saved.config).toEqual({
      defaultMethod: 'GET',
      defaultHeaders: { 'x-agentq-test': 'from-the-form' },
      timeout: 5000,
      maxResponseSize: 50000,
      allowedDomains: ['127.0.0.1', 'example.com'],
      blockedDomains: [],
      parseMode: 'markdown',
    });
  });

  it('executes it against the loopback page and renders the Markdown with status and duration', async () => {
    await openTools();
    await row('loopback_page').getByTestId('tool-action-execute').click();
    await page.getByTestId('execute-dialog').waitFor();
    await page.getByTestId('input-field-url').fill(loopbackUrl);
    await runExecution();

    expect(await page.getByTestId('execute-result-status').textContent()).toContain('Success');
    expect(await page.getByTestId('execute-result-http-status').textContent()).toContain('HTTP 200');
    expect(await page.getByTestId('execute-result-duration').textContent()).toMatch(/^\d+ ms$/);
    expect(await page.getByTestId('execute-result-size').textContent()).toMatch(/\d+(\.\d+)? (B|KB)/);
    const data = page.getByTestId('execute-result-data');
    expect(await data.locator('h1').textContent()).toBe('Hello from loopback');
    expect(await data.locator('strong').textContent()).toBe('fetch');
    expect(await data.locator('li').allTextContents()).toEqual(['first', 'second']);
    // The header configured through the form reached the page.
    expect(loopbackRequests.at(-1)?.['x-agentq-test']).toBe('from-the-form');
  });

  it('saves a config edited in the raw JSON tab, and it survives a reload', async () => {
    await openTools();
    await openEditor('loopback_page');
    await page.getByTestId('config-tabs-raw').click();
    // The dialog fits its content after switching to Raw JSON: nothing scrolls or clips sideways.
    const sidewaysOverflow = () => page.getByTestId('tool-editor').evaluate((dialog) => {
      const body = dialog.querySelector('.body')!;
      return Math.max(body.scrollWidth - body.clientWidth, dialog.scrollWidth - dialog.clientWidth);
    });
    expect(await sidewaysOverflow()).toBe(0);
    const config = await rawConfig();
    await page.getByTestId('config-raw').fill(JSON.stringify({ ...config, timeout: 7000, parseMode: 'raw' }, null, 2));
    await page.getByTestId('tool-editor-save').click();
    await page.getByTestId('tool-editor').waitFor({ state: 'detached' });
    expect(await page.getByTestId('tools-notice').textContent()).toContain('Saved Loopback page');

    await page.reload();
    await openEditor('loopback_page');
    expect(await page.getByTestId('config-field-timeout').inputValue()).toBe('7000');
    expect(await page.getByTestId('config-field-parseMode').locator('option:checked').textContent()).toBe('raw');
    await page.getByTestId('config-tabs-raw').click();
    expect(await rawConfig()).toMatchObject({ timeout: 7000, parseMode: 'raw' });
    await page.getByTestId('tool-editor-cancel').click();

    // The new parse mode is what the tool now uses: the HTML comes back as text.
    await row('loopback_page').getByTestId('tool-action-execute').click();
    await page.getByTestId('input-field-url').fill(loopbackUrl);
    await runExecution();
    const data = page.getByTestId('execute-result-data');
    expect(await data.textContent()).toContain('<h1>Hello from loopback</h1>');
    expect(await data.locator('h1').count()).toBe(0);
    await page.getByTestId('execute-close').click();
  });

  it('shows the API validation issue for a bad config, and blocks saving invalid JSON', async () => {
    await openTools();
    await openEditor('loopback_page');
    await page.getByTestId('config-tabs-raw').click();

    await page.getByTestId('config-raw').fill('{ "timeout": ');
    expect(await page.getByTestId('config-raw-error').textContent()).toMatch(/Invalid JSON/);
    expect(await page.getByTestId('tool-editor-save').isDisabled()).toBe(true);

    const config = { ...(await apiTool('loopback_page')).config, timeout: 999999 };
    await page.getByTestId('config-raw').fill(JSON.stringify(config));
    await page.getByTestId('tool-editor-save').click();
    // Said once: a short summary on top, the message itself beside the config it names.
    const summary = page.getByTestId('tool-editor-summary');
    await summary.waitFor();
    expect(await summary.textContent()).toBe('Check the highlighted field.');
    expect(await summary.textContent()).not.toContain('Invalid json');
    expect(await page.getByTestId('config-raw-issues').textContent()).toMatch(/timeout.*60000/);

    // In the form the issue sits beside the field it names.
    await page.getByTestId('config-tabs-form').click();
    expect(await page.getByTestId('config-field-timeout-issue').textContent()).toMatch(/60000/);
    expect(await page.getByTestId('config-field-timeout').inputValue()).toBe('999999');
    await page.getByTestId('tool-editor-cancel').click();
    expect((await apiTool('loopback_page')).config.timeout).toBe(7000);

    // A taken slug: the 409 message sits beside the slug field.
    await page.getByTestId('tool-new').click();
    await page.getByTestId('tool-name').fill('Duplicate');
    await page.getByTestId('tool-slug').fill('loopback_page');
    await page.getByTestId('tool-editor-save').click();
    const slugIssue = page.getByTestId('tool-slug-issue');
    await slugIssue.waitFor();
    expect(await slugIssue.textContent()).toContain("'loopback_page' already exists");
    await page.getByTestId('tool-editor-cancel').click();
  });

  it('disables the tool from the list toggle, and execution is refused with the API message', async () => {
    await openTools();
    const toggle = row('loopback_page').getByTestId('tool-enabled-toggle');
    expect(await toggle.isChecked()).toBe(true);
    await toggle.click();
    await expect.poll(async () => (await apiTool('loopback_page')).enabled).toBe(false);

    await page.reload();
    expect(await row('loopback_page').getByTestId('tool-enabled-toggle').isChecked()).toBe(false);
    await row('loopback_page').getByTestId('tool-action-execute').click();
    await page.getByTestId('execute-disabled-note').waitFor();
    await page.getByTestId('input-field-url').fill(loopbackUrl);
    await page.getByTestId('execute-run').click();
    const error = page.getByTestId('execute-error');
    await error.waitFor();
    expect(await error.textContent()).toContain("Tool 'loopback_page' is disabled");
    expect(await page.getByTestId('execute-result').count()).toBe(0);
    await page.getByTestId('execute-close').click();
  });

  it('creates a calculator tool and shows its result', async () => {
    await openTools();
    await page.getByTestId('tool-new').click();
    await page.getByTestId('tool-type').selectOption('calculator');
    await page.getByTestId('tool-name').fill('Calculator');
    await page.getByTestId('config-field-precision').fill('6');
    await page.getByTestId('tool-needs-approval').check();
    await page.getByTestId('tool-editor-save').click();
    await page.getByTestId('tool-editor').waitFor({ state: 'detached' });
    await row('calculator').getByTestId('tool-approval-badge').waitFor();
    expect((await apiTool('calculator')).config).toEqual({ precision: 6 });
    // What a call may do, in words (the type's rule in the tooltip): a fetch depends on its method.
    expect(await row('calculator').getByTestId('tool-effect').textContent()).toBe('No side effects');
    expect(await row('loopback_page').getByTestId('tool-effect').textContent()).toBe('Safe to repeat / Never repeated');
    expect(await row('calculator').getByTestId('tool-effect').getAttribute('title')).toContain('Pure computation');

    await row('calculator').getByTestId('tool-action-execute').click();
    await page.getByTestId('input-field-expression').fill('2 * (3 + 4) / 3');
    await runExecution();
    // The tool needs approval: running it by hand takes an explicit confirmation (issue 12, finding 9).
    expect(await page.getByTestId('execute-confirm').textContent()).toContain("Tool 'calculator' is set to need approval");
    await confirmExecution();
    expect(await page.getByTestId('execute-result-status').textContent()).toContain('Success');
    expect(await page.getByTestId('execute-result-data').textContent()).toContain('4.66667');

    // An input the tool rejects is a failed result, shown in red.
    await page.getByTestId('input-field-expression').fill('2 +* )');
    await runExecution();
    await confirmExecution();
    expect(await page.getByTestId('execute-result-status').textContent()).toContain('Error');
    expect(await page.getByTestId('execute-result-error').textContent()).not.toBe('');
    await page.getByTestId('execute-close').click();
  });

  it('edits a union input (datetime) as JSON, started from an example', async () => {
    await openTools();
    await page.getByTestId('tool-new').click();
    await page.getByTestId('tool-type').selectOption('datetime');
    await page.getByTestId('tool-name').fill('Clock');
    await page.getByTestId('tool-editor-save').click();
    await page.getByTestId('tool-editor').waitFor({ state: 'detached' });

    await row('clock').getByTestId('tool-action-execute').click();
    expect(JSON.parse(await page.getByTestId('input-raw').inputValue())).toEqual({ action: 'now' });
    await page.getByTestId('input-example').selectOption({ label: 'action: add' });
    const example = JSON.parse(await page.getByTestId('input-raw').inputValue()) as Record<string, unknown>;
    expect(example.action).toBe('add');
    await page.getByTestId('input-raw').fill(JSON.stringify({ action: 'add', datetime: '2024-01-31T10:00:00Z', amount: 1, unit: 'days', timezone: 'UTC' }));
    await runExecution();
    expect(await page.getByTestId('execute-result-status').textContent()).toContain('Success');
    expect(await page.getByTestId('execute-result-data').textContent()).toContain('2024-02-01');
    await page.getByTestId('execute-close').click();
  });

  it('lists executions in the tool logs with filters, expandable rows and paging', async () => {
    await page.goto(`${stack.url}/admin`);
    await page.getByTestId('admin-entry-tool-logs').click();
    await page.waitForURL(`${stack.url}/admin/tool-logs`);
    await page.getByTestId('logs-table').waitFor();
    // Two loopback fetches, two calculator runs, one datetime run; the refused one never ran.
    expect(await page.getByTestId('log-row').count()).toBe(5);

    const calculator = await apiTool('calculator');
    await page.getByTestId('logs-filter-tool').selectOption(calculator.id);
    await page.getByTestId('logs-filter-status').selectOption('error');
    await page.getByTestId('logs-filter-apply').click();
    await page.waitForURL(/status=error/);
    await expect.poll(() => page.getByTestId('log-row').count()).toBe(1);
    await page.getByTestId('log-row').first().click();
    expect(await page.getByTestId('log-input').textContent()).toContain('2 +* )');

    await page.goto(`${stack.url}/admin/tool-logs?limit=2`);
    await page.getByTestId('logs-table').waitFor();
    expect(await page.getByTestId('log-row').count()).toBe(2);
    await page.getByTestId('logs-load-more').click();
    await expect.poll(() => page.getByTestId('log-row').count()).toBe(4);
    await page.getByTestId('logs-load-more').click();
    await expect.poll(() => page.getByTestId('log-row').count()).toBe(5);
    expect(await page.getByTestId('logs-load-more').count()).toBe(0);
    expect(await page.getByTestId('logs-count').textContent()).toContain('5 of 5');
  });

  it('reorders tools with the arrows, and the order is saved', async () => {
    async function order(): Promise<string[]> {
      const testIds = await page.getByTestId('tools-table').locator('tbody > tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-testid') ?? ''));
      return testIds.map((testId) => testId.replace(/^tool-row-/, ''));
    }
    await openTools();
    expect(await order()).toEqual(['loopback_page', 'calculator', 'clock']);
    await row('clock').getByTestId('tool-move-up').click();
    await expect.poll(order).toEqual(['loopback_page', 'clock', 'calculator']);
    await row('loopback_page').getByTestId('tool-move-down').click();
    await expect.poll(order).toEqual(['clock', 'loopback_page', 'calculator']);
    await page.reload();
    await row('clock').waitFor();
    expect(await order()).toEqual(['clock', 'loopback_page', 'calculator']);
  });

  it('deletes a tool after confirming', async () => {
    await openTools();
    await row('clock').getByTestId('tool-action-delete').click();
    await row('clock').getByTestId('tool-delete-confirm').click();
    await row('clock').waitFor({ state: 'detached' });
    expect(await page.getByTestId('tools-notice').textContent()).toContain('Deleted Clock');
    await page.reload();
    await row('calculator').waitFor();
    expect(await row('clock').count()).toBe(0);
  });

  it('creates a web-search tool with the form: Brave asks for its key, SearXNG for its address, and a search shows the results', async () => {
    // A fake Brave on loopback, which the stack allows (FETCH_ALLOW_PRIVATE_NETWORKS=1); the real one is never asked.
    const provider = await startFakeSearchProvider();
    try {
      await openTools();
      await page.getByTestId('tool-new').click();
      const editor = page.getByTestId('tool-editor');
      await editor.waitFor();
      await page.getByTestId('tool-name').fill('Web search');
      await page.getByTestId('tool-type').selectOption('web-search');
      expect(await page.getByTestId('config-field-provider').locator('option:checked').textContent()).toBe('brave');
      expect(await page.getByTestId('config-field-maxResults').inputValue()).toBe('5');
      expect(await editor.textContent()).toContain('Who answers the searches');
      expect(await page.getByTestId('tool-input-schema').textContent()).toContain('"query"');

      // Brave without its key: the API's issue names the secret.
      await page.getByTestId('tool-editor-save').click();
      const summary = page.getByTestId('tool-editor-summary');
      await summary.waitFor();
      expect(await summary.textContent()).toContain('secrets.apiKey: Brave Search needs an API key');
      // SearXNG without an address: the issue sits beside baseUrl.
      await page.getByTestId('config-field-provider').selectOption({ label: 'searxng' });
      await page.getByTestId('tool-editor-save').click();
      await page.getByTestId('config-field-baseUrl-issue').waitFor();
      expect(await page.getByTestId('config-field-baseUrl-issue').textContent()).toContain('SearXNG needs baseUrl');

      await page.getByTestId('config-field-provider').selectOption({ label: 'brave' });
      await page.getByTestId('config-field-baseUrl').fill(provider.baseUrls.brave);
      await page.getByTestId('config-field-maxResults').fill('2');
      await page.getByTestId('tool-secrets-raw').fill(JSON.stringify({ apiKey: FAKE_SEARCH_KEY }));
      await page.getByTestId('tool-editor-save').click();
      await editor.waitFor({ state: 'detached' });
      await row('web_search').waitFor();
      expect(await row('web_search').textContent()).toContain('Web search');
      expect((await apiTool('web_search')).config).toEqual({ provider: 'brave', baseUrl: provider.baseUrls.brave, maxResults: 2, safeSearch: 'moderate', language: '', timeout: 10000 });

      // The key is write-only: its name shows, never its value.
      await openEditor('web_search');
      expect(await page.getByTestId('tool-secrets-set').textContent()).toContain('Set: apiKey');
      expect(await page.content()).not.toContain(FAKE_SEARCH_KEY);
      await page.getByTestId('tool-editor-cancel').click();

      await row('web_search').getByTestId('tool-action-execute').click();
      await page.getByTestId('execute-dialog').waitFor();
      await page.getByTestId('input-field-query').fill('agentq');
      await runExecution();
      expect(await page.getByTestId('execute-result-status').textContent()).toContain('Success');
      const data = await page.getByTestId('execute-result-data').textContent();
      expect(data).toContain('agentq 2.0 released');
      expect(data).toContain('https://docs.example.org/agentq');
      expect(data).not.toContain('Forum thread');
      expect(provider.requests.at(-1)!.headers['x-subscription-token']).toBe(FAKE_SEARCH_KEY);
    } finally {
      await provider.close();
    }
  });
});
