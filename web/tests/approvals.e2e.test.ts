import type { Locator, Page, Route } from 'playwright-core';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../infra/fake-llm/server.ts';
import { byLastUserMessage, toolResultsSinceLastUserMessage, type ChatCompletionRequest } from '../../infra/fake-llm/scripts.ts';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, createFakeModel, lastAssistant, logInByApi, logInByBrowser, sendMessage, startLoopback, waitForRunStatus } from './fixtures.ts';

/** "order alpha" → the order tool for /alpha; "quick foxtrot" → the quick tool (short timeout) for /foxtrot. */
function orderFrom(request: ChatCompletionRequest): { tool: string; name: string } {
  const content = request.messages.filter((message) => message.role === 'user').at(-1)?.content;
  const text = typeof content === 'string' ? content : (content ?? []).map((part) => part.text ?? '').join('');
  const [, verb = 'order', name = 'nothing'] = /^(order|quick) (\w+)/i.exec(text) ?? [];
  return { tool: verb.toLowerCase(), name };
}

describe('approvals in the browser', () => {
  let stack: Stack;
  let llm: FakeLlm;
  let target: Awaited<ReturnType<typeof startLoopback>>;
  let targetBase = '';
  const hits: string[] = [];
  let browser: LaunchedBrowser;
  let page: Page;
  let cookie = '';

  beforeAll(async () => {
    // The order service: counts every call, so a denied call is seen never to arrive.
    target = await startLoopback((request, response) => {
      hits.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(`done ${request.url}`);
    });
    targetBase = target.url;

    // "order <name>" calls the order tool for /<name>; once the tool answered (or was denied), the
    // model repeats what it got, which for a denial carries the approver's reason.
    llm = await startFakeLlm({
      script: byLastUserMessage([
        {
          match: /^(order|quick) \w+/i,
          reply: (request) => {
            const results = toolResultsSinceLastUserMessage(request);
            if (results.length > 0) return { text: `Result: ${results.map((result) => result.content).join(' | ')}` };
            const { tool, name } = orderFrom(request);
            return { toolCalls: [{ name: tool, input: { url: `${targetBase}/${name}`, method: 'POST' } }] };
          },
        },
        { match: /./, reply: { text: 'Nothing to order.' } },
      ]),
    });

    stack = await startStack();
    const admin = await logInByApi(stack);
    await createFakeModel(stack, admin, llm);
    for (const tool of [
      { name: 'Order', slug: 'order', type: 'fetch', needsApproval: true, config: { parseMode: 'raw' } },
      { name: 'Quick', slug: 'quick', type: 'fetch', needsApproval: true, approvalTimeoutMs: 3000, config: { parseMode: 'raw' } },
    ]) {
      await createByApi(stack, admin, '/api/agent-tools', tool);
    }

    // An ordinary user: approvals are theirs to decide.
    const user = await stack.createUser('user');
    cookie = (await logInByApi(stack, user)).cookie;
    browser = await launchBrowser();
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await logInByBrowser(page, stack, user);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await llm?.close();
    await target?.close();
  });

  async function api(path: string, init: { method?: string; json?: unknown } = {}) {
    const response = await fetch(`${stack.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { cookie, 'content-type': 'application/json' },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  function hitsOf(path: string): number {
    return hits.filter((hit) => hit === path).length;
  }

  /** Starts a new chat with this message and waits for its session page. */
  async function newChat(text: string) {
    await page.goto(`${stack.url}/chat`);
    await page.getByTestId('send-button').waitFor();
    await page.getByTestId('message-input').fill(text);
    await page.getByTestId('message-input').press('Enter');
    await page.waitForURL(/\/chat\/[^/]+$/);
  }

  /** The badge's number; 0 when it is not shown. */
  async function badge(): Promise<number> {
    const element = page.getByTestId('approvals-badge');
    return (await element.count()) === 0 ? 0 : Number(await element.textContent());
  }

  /** The pending approval card of the newest turn, with its buttons. */
  async function pendingCard(): Promise<Locator> {
    const card = lastAssistant(page).getByTestId('approval-card');
    await card.and(page.locator('[data-state="pending"]')).waitFor({ timeout: 20_000 });
    await card.getByTestId('approval-approve').waitFor();
    return card;
  }

  it('approves from the chat card: the tool runs once, the answer appears, and the badge goes 1 → 0', async () => {
    expect(await badge()).toBe(0);
    await newChat('order alpha');
    const card = await pendingCard();
    const toolCard = lastAssistant(page).getByTestId('tool-card');
    expect(await toolCard.getByTestId('tool-status').textContent()).toContain('Awaiting approval');
    expect(JSON.parse((await toolCard.getByTestId('tool-input').textContent()) ?? '')).toEqual({ url: `${targetBase}/alpha`, method: 'POST' });
    // Ten minutes by default: the countdown shows m:ss and goes down.
    const timeLeft = card.getByTestId('approval-time-left');
    expect(await timeLeft.textContent()).toMatch(/^\d+:\d\d$/);
    const firstReading = await timeLeft.textContent();
    await expect.poll(() => timeLeft.textContent(), { timeout: 5000 }).not.toBe(firstReading);
    for (const button of ['approval-remember', 'approval-edit', 'approval-deny']) expect(await card.getByTestId(button).isVisible()).toBe(true);
    await expect.poll(badge, { timeout: 10_000 }).toBe(1);
    expect(await lastAssistant(page).getAttribute('data-status')).toBe('awaiting_approval');
    expect(hitsOf('/alpha')).toBe(0);

    await card.getByTestId('approval-approve').click();
    await card.getByTestId('approval-outcome').and(page.locator('[data-status="approved"]')).waitFor();
    expect(await card.getByTestId('approval-approve').count()).toBe(0);
    expect(await card.getByTestId('approval-outcome').textContent()).toContain('approved by you');
    await waitForRunStatus(page, 'succeeded');
    expect(await lastAssistant(page).getByTestId('markdown-text').textContent()).toContain(`done /alpha`);
    expect(await toolCard.getByTestId('tool-status').textContent()).toContain('Succeeded');
    expect(hitsOf('/alpha')).toBe(1);
    // The badge was refreshed right after the decision, not at the next poll.
    await expect.poll(badge, { timeout: 3000 }).toBe(0);
  });

  it('denies with a reason: the tool never runs and the answer carries the reason', async () => {
    await newChat('order bravo');
    const card = await pendingCard();
    await card.getByTestId('approval-deny').click();
    await card.getByTestId('approval-reason').fill('budget frozen this week');
    await card.getByTestId('approval-deny-confirm').click();

    await card.getByTestId('approval-outcome').and(page.locator('[data-status="denied"]')).waitFor();
    expect(await card.getByTestId('approval-reason-text').textContent()).toContain('budget frozen this week');
    await waitForRunStatus(page, 'succeeded');
    expect(await lastAssistant(page).getByTestId('markdown-text').textContent()).toContain('budget frozen this week');
    expect(await lastAssistant(page).getByTestId('tool-status').textContent()).toContain('Denied');
    expect(hitsOf('/bravo')).toBe(0);

    // The outcome is part of the stored message.
    await page.reload();
    await waitForRunStatus(page, 'succeeded');
    const stored = lastAssistant(page).getByTestId('approval-card');
    expect(await stored.getAttribute('data-state')).toBe('denied');
    expect(await stored.getByTestId('approval-reason-text').textContent()).toContain('budget frozen this week');
    expect(await stored.getByTestId('approval-approve').count()).toBe(0);
    expect(hitsOf('/bravo')).toBe(0);
  });

  it('keeps the pending card with its buttons across a reload; a bad edit shows the issues, a good one runs the edited input', async () => {
    await newChat('order charlie');
    await pendingCard();
    await page.reload();
    const card = await pendingCard();
    expect(await lastAssistant(page).getByTestId('tool-status').textContent()).toContain('Awaiting approval');
    await expect.poll(badge, { timeout: 10_000 }).toBe(1);

    await card.getByTestId('approval-edit').click();
    const editor = card.getByTestId('approval-input-editor');
    expect(JSON.parse(await editor.inputValue())).toEqual({ url: `${targetBase}/charlie`, method: 'POST' });
    // Broken JSON: an inline error as soon as it is typed, and the approve button waits for a fix.
    await editor.fill('{ "url": ');
    expect(await card.getByTestId('approval-input-editor-error').textContent()).toContain('Not valid JSON');
    expect(await card.getByTestId('approval-approve-edited').isDisabled()).toBe(true);
    await editor.fill('{ "url": 42 }');
    await card.getByTestId('approval-approve-edited').click();
    await card.getByTestId('approval-issues').waitFor();
    expect(await card.getByTestId('approval-issues').textContent()).toMatch(/url/);
    expect(await card.getAttribute('data-state')).toBe('pending');

    const edited = { url: `${targetBase}/charlie-edited`, method: 'POST' };
    await editor.fill(JSON.stringify(edited));
    await card.getByTestId('approval-approve-edited').click();
    await card.getByTestId('approval-outcome').and(page.locator('[data-status="approved"]')).waitFor();
    expect(JSON.parse((await card.getByTestId('approval-edited-input').textContent()) ?? '')).toEqual(edited);
    await waitForRunStatus(page, 'succeeded');
    expect(await lastAssistant(page).getByTestId('markdown-text').textContent()).toContain('done /charlie-edited');
    expect(hitsOf('/charlie-edited')).toBe(1);
    expect(hitsOf('/charlie')).toBe(0);
    await expect.poll(badge, { timeout: 3000 }).toBe(0);

    await page.reload();
    await waitForRunStatus(page, 'succeeded');
    const stored = lastAssistant(page).getByTestId('approval-card');
    expect(await stored.getByTestId('approval-status').textContent()).toContain('Approved with edits');
    expect(JSON.parse((await stored.getByTestId('approval-edited-input').textContent()) ?? '')).toEqual(edited);
  });

  it('"Always allow in this session" approves, and the next call of the tool in the session does not ask', async () => {
    await newChat('order delta');
    const card = await pendingCard();
    await card.getByTestId('approval-remember').click();
    await card.getByTestId('approval-outcome').and(page.locator('[data-status="approved"]')).waitFor();
    expect(await card.getByTestId('approval-outcome').textContent()).toContain('later calls in this session run without asking');
    await waitForRunStatus(page, 'succeeded');
    await page.reload();
    await waitForRunStatus(page, 'succeeded');
    expect(await lastAssistant(page).getByTestId('approval-outcome').textContent()).toContain('later calls in this session run without asking');

    await sendMessage(page, 'order echo');
    await waitForRunStatus(page, 'succeeded');
    expect(await lastAssistant(page).getByTestId('approval-card').count()).toBe(0);
    expect(await lastAssistant(page).getByTestId('markdown-text').textContent()).toContain('done /echo');
    expect(hitsOf('/echo')).toBe(1);
  });

  it('shows an approval nobody decided as expired: the buttons go when the time is up', async () => {
    await newChat('quick foxtrot');
    const card = await pendingCard();
    await card.and(page.locator('[data-state="expired"]')).waitFor({ timeout: 10_000 });
    expect(await card.getByTestId('approval-approve').count()).toBe(0);
    await waitForRunStatus(page, 'succeeded');
    expect(await card.getByTestId('approval-outcome').getAttribute('data-status')).toBe('expired');
    expect(hitsOf('/foxtrot')).toBe(0);
  });

  it('lists the pending approval in the inbox with a link to its chat; deciding there resumes the run', async () => {
    await newChat('order golf');
    await pendingCard();
    const sessionUrl = page.url();

    await page.getByTestId('nav-approvals').click();
    await page.waitForURL(`${stack.url}/approvals`);
    const item = page.getByTestId('approval-item');
    await item.waitFor();
    expect(await item.count()).toBe(1);
    expect(await item.getByTestId('approval-tool-name').textContent()).toBe('order');
    expect(JSON.parse((await item.getByTestId('approval-input').textContent()) ?? '')).toEqual({ url: `${targetBase}/golf`, method: 'POST' });
    expect(await item.getByTestId('approval-chat-link').getAttribute('href')).toBe(new URL(sessionUrl).pathname);
    // Earlier decisions are listed below, with who decided and why.
    const denied = page.getByTestId('decided-approval').and(page.locator('[data-status="denied"]'));
    expect(await denied.getByTestId('decided-reason').textContent()).toContain('budget frozen this week');
    expect(await denied.getByTestId('decided-by').textContent()).toBe('you');
    expect(await page.getByTestId('decided-approval').and(page.locator('[data-status="expired"]')).getByTestId('decided-by').textContent()).toBe(
      'nobody (timed out)',
    );

    // An admin sees everyone's approvals, each naming who asked and who decided (from the list
    // itself: the page no longer reads every user for their names).
    const adminBrowser = await launchBrowser();
    try {
      const adminPage = adminBrowser.page;
      await adminPage.setViewportSize({ width: 1280, height: 900 });
      await logInByBrowser(adminPage, stack);
      await adminPage.goto(`${stack.url}/approvals`);
      const adminItem = adminPage.getByTestId('approval-item');
      await adminItem.waitFor();
      expect(await adminItem.locator('.meta').textContent()).toContain('by a run of Test user');
      const deniedForAdmin = adminPage.getByTestId('decided-approval').and(adminPage.locator('[data-status="denied"]'));
      expect(await deniedForAdmin.textContent()).toContain('for Test user');
      expect(await deniedForAdmin.getByTestId('decided-by').textContent()).toBe('Test user');
    } finally {
      await adminBrowser.close();
    }

    // 510 more calls asked and decided since this one was asked: it still waits in the inbox (the
    // page had read the 500 newest of any status and picked the pending ones out of them), and the
    // latest 50 decisions are listed below it.
    const database = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await database`
        insert into approvals (id, run_id, user_id, tool_call_id, tool_id, tool_name, input, input_hash, status, expires_at, decided_by, decided_at, created_at)
        select 'ap_later_' || lpad(i::text, 3, '0'), waiting.run_id, waiting.user_id, 'call_later_' || i, waiting.tool_id, 'order', '{}'::jsonb, 'h', 'approved',
               now() + interval '1 hour', waiting.user_id, waiting.created_at + i * interval '1 millisecond', waiting.created_at + i * interval '1 millisecond'
        from approvals waiting, generate_series(1, 510) as i
        where waiting.status = 'pending'`;
    } finally {
      await database.end();
    }
    await page.reload();
    await item.waitFor();
    expect(await item.count()).toBe(1);
    expect(await item.getByTestId('approval-tool-name').textContent()).toBe('order');
    await expect.poll(() => page.getByTestId('decided-approval').count(), { timeout: 15_000 }).toBe(50);
    expect(await page.getByTestId('decided-approval').first().getAttribute('data-approval-id')).toBe('ap_later_510');
    // The 510, the denial and the expiry above, and the other tests' decisions.
    const total = Number(/^Showing the latest 50 of (\d+) decisions\.$/.exec((await page.getByTestId('decided-showing').textContent()) ?? '')?.[1]);
    expect(total).toBeGreaterThanOrEqual(512);

    await item.getByTestId('approval-approve').click();
    // The inbox reloads: nothing waits any more, and the decision heads the decided list.
    await page.getByTestId('approvals-pending-empty').waitFor();
    expect(await page.getByTestId('decided-approval').first().getAttribute('data-status')).toBe('approved');
    await expect.poll(badge, { timeout: 3000 }).toBe(0);

    await page.goto(sessionUrl);
    await waitForRunStatus(page, 'succeeded');
    expect(await lastAssistant(page).getByTestId('markdown-text').textContent()).toContain('done /golf');
    expect(hitsOf('/golf')).toBe(1);
  });

  it('a card whose approval was decided elsewhere (409) shows the real decision', async () => {
    await newChat('order hotel');
    await pendingCard();
    // Hold the badge's count reads, so the inbox does not reload on its own and the stale card stays.
    const held: Route[] = [];
    await page.route('**/api/approvals/count', (route) => void held.push(route));
    try {
      await page.getByTestId('nav-approvals').click();
      const item = page.getByTestId('approval-item');
      await item.getByTestId('approval-approve').waitFor();
      const approvalId = (await item.getAttribute('data-approval-id'))!;
      expect((await api(`/api/approvals/${approvalId}`, { method: 'POST', json: { decision: 'deny', reason: 'decided in another tab' } })).status).toBe(200);

      await item.getByTestId('approval-approve').click();
      const card = item.getByTestId('approval-card');
      await card.and(page.locator('[data-state="denied"]')).waitFor();
      expect(await card.getByTestId('approval-notice').textContent()).toContain('already decided elsewhere');
      expect(await card.getByTestId('approval-reason-text').textContent()).toContain('decided in another tab');
    } finally {
      await page.unroute('**/api/approvals/count');
      for (const route of held) await route.continue().catch(() => {});
    }
    expect(hitsOf('/hotel')).toBe(0);
  });

  it('a send refused because the session has a run started elsewhere shows that run instead', async () => {
    await newChat('plain hello');
    await waitForRunStatus(page, 'succeeded');
    const sessionId = new URL(page.url()).pathname.split('/').at(-1)!;
    // "Another tab" starts a run in this session.
    const started = await api(`/api/sessions/${sessionId}/runs`, { method: 'POST', json: { content: 'order india' } });
    expect(started.status).toBe(202);

    await page.getByTestId('message-input').fill('are you there?');
    await page.getByTestId('message-input').press('Enter');
    await page.getByTestId('send-error').filter({ hasText: 'already going' }).waitFor();
    // The draft is given back, and the other run appears with its pending approval.
    expect(await page.getByTestId('message-input').inputValue()).toBe('are you there?');
    await expect.poll(() => page.getByTestId('user-message').last().textContent()).toContain('order india');
    const card = await pendingCard();
    await card.getByTestId('approval-approve').click();
    await waitForRunStatus(page, 'succeeded');
    expect(await lastAssistant(page).getByTestId('markdown-text').textContent()).toContain('done /india');
  });
});
