import type { Locator, Page } from 'playwright-core';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { byLastUserMessage, toolResultsSinceLastUserMessage } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { expectNoHorizontalOverflow, logInByApi, logInByBrowser, submitLogin } from './fixtures.ts';

// The slow turn's second step waits this long for its first token, holding the only worker slot.
const SLOW_TTFT_MS = 6000;

describe('admin workers dashboard', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let browser: LaunchedBrowser;
  let page: Page;
  let headers: Record<string, string>;
  let calcToolId = '';
  let slowRunId = '';

  async function api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${stack.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  }

  async function startRun(content: string): Promise<string> {
    const session = await api('POST', '/api/sessions', {});
    const run = await api('POST', `/api/sessions/${session.body.id}/runs`, { content });
    expect(run.status).toBe(202);
    return run.body.runId as string;
  }

  function runRow(runId: string, status?: string): Locator {
    return page.locator(`[data-testid="run-row"][data-run-id="${runId}"]${status ? `[data-status="${status}"]` : ''}`);
  }

  function count(queue: string, state: string): Locator {
    return page.getByTestId(`queue-${queue}-${state}`);
  }

  beforeAll(async () => {
    llm = await startFakeLlm({
      script: byLastUserMessage([
        {
          match: /^slow/i,
          reply: (request) =>
            toolResultsSinceLastUserMessage(request).length
              ? { text: 'The answer is 42.', latency: { timeToFirstTokenMs: SLOW_TTFT_MS } }
              : { toolCalls: [{ name: 'calc', input: { expression: '6*7' } }] },
        },
        { match: /^quick/i, reply: { text: 'Quick answer.' } },
        {
          match: /^guarded/i,
          reply: (request) => (toolResultsSinceLastUserMessage(request).length ? { text: 'Guarded done.' } : { toolCalls: [{ name: 'guarded_calc', input: { expression: '2+2' } }] }),
        },
      ]),
    });
    // One chat slot makes a second run visibly wait; the reconciler stays out of the failed-job test.
    stack = await startStack({ env: { WORKER_CONCURRENCY: '1', RECONCILE_INTERVAL_MS: '3600000' } });
    headers = await logInByApi(stack);
    expect((await api('POST', '/api/models', { name: 'Fake', baseUrl: llm.url, modelId: 'fake-model' })).status).toBe(201);
    const calc = await api('POST', '/api/agent-tools', { name: 'Calc', slug: 'calc', type: 'calculator' });
    expect(calc.status).toBe(201);
    calcToolId = calc.body.id;
    expect((await api('POST', '/api/agent-tools', { name: 'Guarded calc', slug: 'guarded_calc', type: 'calculator', needsApproval: true })).status).toBe(201);

    browser = await launchBrowser();
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 1000 });
    await logInByBrowser(page, stack);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await llm?.close();
  });

  it('shows the worker online and a run going from queued to succeeded behind a slow one', { timeout: 90_000 }, async () => {
    await page.goto(`${stack.url}/admin`);
    await page.getByTestId('admin-entry-workers').click();
    await page.waitForURL(`${stack.url}/admin/workers`);
    await page.getByTestId('worker-row').waitFor();
    expect(await page.getByTestId('workers-online').textContent()).toBe('1');
    expect(await page.getByTestId('worker-concurrency').textContent()).toBe('1');
    expect(await page.getByTestId('queue-chat-turns').isVisible()).toBe(true);
    expect(await page.getByTestId('queue-tool-executions').isVisible()).toBe(true);

    slowRunId = await startRun('slow multiplication');
    const quickRunId = await startRun('quick question');
    // The quick run waits for the slot the slow one holds: the page shows it queued, then done.
    await runRow(quickRunId, 'queued').waitFor({ timeout: 15_000 });
    await expect.poll(async () => count('chat-turns', 'waiting').textContent(), { timeout: 10_000 }).toBe('1');
    await expect.poll(async () => count('chat-turns', 'active').textContent(), { timeout: 10_000 }).toBe('1');
    await runRow(slowRunId, 'running').waitFor({ timeout: 10_000 });
    await runRow(quickRunId, 'succeeded').waitFor({ timeout: 30_000 });
    await runRow(slowRunId, 'succeeded').waitFor({ timeout: 5_000 });
    await expect.poll(async () => count('chat-turns', 'waiting').textContent()).toBe('0');
    await expect.poll(async () => Number(await count('chat-turns', 'completed').textContent())).toBeGreaterThanOrEqual(2);
    await expect.poll(async () => Number(await page.getByTestId('throughput-chart').getAttribute('data-completed'))).toBeGreaterThanOrEqual(2);

    // The runs table filters by status and kind.
    await page.getByTestId('runs-filter-status').selectOption('succeeded');
    await page.getByTestId('runs-filter-kind').selectOption('chat');
    await page.getByTestId('runs-filter-apply').click();
    await page.waitForURL(/status=succeeded/);
    await expect.poll(async () => page.getByTestId('run-row').count()).toBe(2);
    await page.getByTestId('runs-filter-clear').click();
    await page.waitForURL(`${stack.url}/admin/workers`);
  });

  it('counts a run waiting for approval as parked for approval', { timeout: 60_000 }, async () => {
    await page.goto(`${stack.url}/admin/workers`);
    const runId = await startRun('guarded sum');
    await expect.poll(async () => count('chat-turns', 'parked').textContent(), { timeout: 15_000 }).toBe('1');
    await runRow(runId, 'awaiting_approval').waitFor();
    expect(await count('chat-turns', 'active').textContent()).toBe('0');

    const approvals = await api('GET', `/api/approvals?runId=${runId}`);
    expect((await api('POST', `/api/approvals/${approvals.body.items[0].id}`, { decision: 'approve' })).status).toBe(200);
    await runRow(runId, 'succeeded').waitFor({ timeout: 15_000 });
    await expect.poll(async () => count('chat-turns', 'parked').textContent()).toBe('0');
  });

  it('retries a failed job from the page once its cause is fixed', { timeout: 60_000 }, async () => {
    await page.goto(`${stack.url}/admin/workers`);
    // A standalone execution waits in a paused queue while its run row is deleted (say, by a cleanup
    // script); when the queue resumes, the worker fails the job: its run does not exist.
    expect((await api('PUT', '/admin/queues/api/queues/tool-executions/pause')).status).toBe(200);
    await page.getByTestId('queue-tool-executions-paused').waitFor();
    const execution = await api('POST', `/api/agent-tools/${calcToolId}/execute?async=1`, { input: { expression: '20+22' } });
    expect(execution.status).toBe(202);
    const runId = execution.body.runId as string;
    const database = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const [deleted] = await database`delete from runs where id = ${runId} returning *`;
      expect((await api('PUT', '/admin/queues/api/queues/tool-executions/resume')).status).toBe(200);

      const row = page.locator(`[data-testid="failed-job-row"][data-job-id="${runId}"]`);
      await row.waitFor({ timeout: 15_000 });
      expect(await row.getByTestId('failed-job-reason').textContent()).toContain(`Run ${runId} does not exist`);
      expect(await count('tool-executions', 'failed').textContent()).toBe('1');

      // On a phone each table (workers online, failures, runs) scrolls inside its card: the page is
      // no wider than the screen, and the failed job's Retry stays on screen at the card's edge.
      for (const width of [390, 320]) {
        await page.setViewportSize({ width, height: 900 });
        await expectNoHorizontalOverflow(page, `workers dashboard at ${width} px`);
        await row.getByTestId('failed-job-retry').scrollIntoViewIfNeeded();
        const retry = await row.getByTestId('failed-job-retry').boundingBox();
        expect(retry!.x + retry!.width).toBeLessThanOrEqual(width);
      }
      await page.setViewportSize({ width: 1280, height: 1000 });

      // The operator restores the row, then retries from the dashboard.
      await database`insert into runs ${database(deleted!)}`;
      await row.getByTestId('failed-job-retry').click();
      await page.getByTestId('workers-notice').waitFor();
      expect(await page.getByTestId('workers-notice').textContent()).toContain('queued again');
      await row.waitFor({ state: 'detached', timeout: 15_000 });
      await page.getByTestId('failures-empty').waitFor();
      await expect.poll(async () => (await api('GET', `/api/runs/${runId}`)).body.status, { timeout: 15_000 }).toBe('succeeded');
      expect((await api('GET', `/api/runs/${runId}`)).body.result).toMatchObject({ success: true });
      await runRow(runId, 'succeeded').waitFor({ timeout: 10_000 });
      expect(await count('tool-executions', 'failed').textContent()).toBe('0');
    } finally {
      await database.end();
    }
  });

  it('opens a run from the table: the step timeline, the replayed events and the tool logs', { timeout: 60_000 }, async () => {
    await page.goto(`${stack.url}/admin/workers`);
    await runRow(slowRunId).getByTestId('run-link').click();
    await page.waitForURL(`${stack.url}/admin/runs/${slowRunId}`);
    expect(await page.getByTestId('run-status').textContent()).toBe('succeeded');

    const steps = page.getByTestId('timeline-step');
    await steps.first().waitFor();
    expect(await steps.count()).toBe(2);
    const toolCall = page.getByTestId('timeline-tool-call');
    expect(await toolCall.count()).toBe(1);
    expect(await toolCall.getAttribute('data-tool')).toBe('calc');
    expect(await toolCall.getByTestId('timeline-tool-status').textContent()).toBe('success');
    expect(await toolCall.getByTestId('timeline-tool-duration').textContent()).toMatch(/^\d+(\.\d)? (ms|s)$/);
    // The second step waited for the slow model: its latency shows in seconds.
    const secondLatency = await steps.nth(1).getByTestId('timeline-model-latency').textContent();
    expect(secondLatency).toMatch(/^\d+(\.\d)? s$/);
    expect(Number.parseFloat(secondLatency!)).toBeGreaterThanOrEqual(SLOW_TTFT_MS / 1000);
    expect(await steps.first().getByTestId('timeline-tokens').textContent()).toMatch(/^\d+ in \/ \d+ out/);

    // The replayed stream, compactly: the tool call, its result and the finish.
    await page.getByTestId('events-state').filter({ hasText: 'replayed' }).waitFor({ timeout: 10_000 });
    const types = await page.getByTestId('event-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-type')));
    expect(types).toEqual(expect.arrayContaining(['start', 'start-step', 'tool-input-available', 'tool-output-available', 'finish-step', 'text-delta', 'finish']));
    expect(types.at(-1)).toBe('finish');

    const logs = page.getByTestId('run-tool-log');
    expect(await logs.count()).toBe(1);
    expect(await logs.getAttribute('data-status')).toBe('success');
    expect(await logs.textContent()).toContain('calc');

    // On a phone the run's id breaks in the heading; the status stays on screen beside it.
    for (const width of [390, 320]) {
      await page.setViewportSize({ width, height: 900 });
      await expectNoHorizontalOverflow(page, `run page at ${width} px`);
      const status = await page.getByTestId('run-status').boundingBox();
      expect(status!.x + status!.width).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1280, height: 1000 });
  });

  it('links the queue board from the dashboard, and the board loads its assets through the mount path', { timeout: 30_000 }, async () => {
    await page.goto(`${stack.url}/admin`);
    const failedAssets: string[] = [];
    // The dashboard's own polls (the approvals badge) may be cut short by leaving it: a failed
    // request counts only under the board's mount path; a misrouted asset still shows as a 404.
    page.on('requestfailed', (request) => {
      if (request.url().startsWith(`${stack.url}/admin/queues`)) failedAssets.push(request.url());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) failedAssets.push(`${response.status()} ${response.url()}`);
    });
    await page.getByTestId('admin-entry-queues').click();
    await page.waitForURL(`${stack.url}/admin/queues`);
    await page.getByText('chat-turns').first().waitFor({ timeout: 15_000 });
    expect(failedAssets).toEqual([]);
  });

  it('sends a signed-out visitor of the queue board to log in, and back to the board', { timeout: 30_000 }, async () => {
    await browser.context.clearCookies();
    await page.goto(`${stack.url}/admin/queues`);
    await page.waitForURL(`${stack.url}/login?next=%2Fadmin%2Fqueues`);
    await submitLogin(page, stack.admin);
    await page.waitForURL(`${stack.url}/admin/queues`);
    await page.getByText('tool-executions').first().waitFor({ timeout: 15_000 });
  });
});
