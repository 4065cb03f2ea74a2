import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { logInByApi, logInByBrowser } from './fixtures.ts';

type AgentView = { id: string; name: string; model: { name: string } | null; tools: { toolId: string; needsApproval: boolean | null }[] };

const API_KEY = `sk-e2e-${randomBytes(6).toString('hex')}`;
const MODEL_NAME = 'E2E model';
const AGENT_NAME = 'E2E agent';

describe('admin models and agents', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;
  let adminHeaders: Record<string, string>;
  const tools: Record<'plain' | 'guarded', { id: string; slug: string }> = {} as never;

  async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
    const response = await fetch(`${stack.url}${path}`, { method: init.method ?? 'GET', headers: adminHeaders, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  }

  async function findAgent(name: string): Promise<AgentView | undefined> {
    const { items } = await api<{ items: AgentView[] }>('/api/agents');
    return items.find((agent) => agent.name === name);
  }

  beforeAll(async () => {
    stack = await startStack();
    adminHeaders = await logInByApi(stack);
    for (const [key, needsApproval] of [['plain', false], ['guarded', false]] as const) {
      const slug = `e2e_${key}_${randomBytes(3).toString('hex')}`;
      tools[key] = await api('/api/agent-tools', { method: 'POST', body: { name: `E2E ${key}`, slug, type: 'calculator', needsApproval } });
    }

    browser = await launchBrowser();
    page = browser.page;
    await logInByBrowser(page, stack);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('creates a model from the dashboard; the API key is never shown again', async () => {
    await page.goto(`${stack.url}/admin`);
    await page.getByTestId('admin-entry-models').click();
    await page.waitForURL(`${stack.url}/admin/models`);

    await page.getByTestId('model-new').click();
    const editor = page.getByTestId('model-editor');
    await editor.getByTestId('model-name').fill(MODEL_NAME);
    await editor.getByTestId('model-base-url').fill('http://127.0.0.1:9/v1');
    await editor.getByTestId('model-model-id').fill('e2e-model');
    expect(await editor.getByTestId('model-api-key').getAttribute('type')).toBe('password');
    await editor.getByTestId('model-api-key').fill(API_KEY);
    await editor.getByTestId('model-supports-reasoning').check();
    // "Names chats" is off for a new model.
    expect(await editor.getByTestId('model-names-chats').isChecked()).toBe(false);
    await editor.getByTestId('model-editor-save').click();
    await editor.waitFor({ state: 'detached' });

    const row = page.getByTestId('model-row').filter({ hasText: MODEL_NAME });
    expect((await row.getByTestId('model-row-key').textContent())?.trim()).toBe('••• set');
    await row.getByTestId('model-reasoning-badge').waitFor();
    expect(await page.content()).not.toContain(API_KEY);

    await page.reload();
    await row.getByTestId('model-edit').click();
    await editor.getByTestId('model-api-key-set').waitFor();
    expect(await editor.getByTestId('model-api-key').inputValue()).toBe('');
    expect(await page.content()).not.toContain(API_KEY);
    expect(await row.getByTestId('model-names-chats-badge').count()).toBe(0);

    // "Names chats" saves, shows on the row, reads back in the editor, and turns off again.
    const namesChats = async () => (await api<{ items: { name: string; namesChats: boolean }[] }>('/api/models')).items.find((model) => model.name === MODEL_NAME)?.namesChats;
    await editor.getByTestId('model-names-chats').check();
    await editor.getByTestId('model-editor-save').click();
    await editor.waitFor({ state: 'detached' });
    await row.getByTestId('model-names-chats-badge').waitFor();
    expect(await namesChats()).toBe(true);
    await page.reload();
    await row.getByTestId('model-edit').click();
    expect(await editor.getByTestId('model-names-chats').isChecked()).toBe(true);
    await editor.getByTestId('model-names-chats').uncheck();
    await editor.getByTestId('model-editor-save').click();
    await editor.waitFor({ state: 'detached' });
    await expect.poll(() => row.getByTestId('model-names-chats-badge').count()).toBe(0);
    expect(await namesChats()).toBe(false);
    // The key stayed through both saves.
    expect((await row.getByTestId('model-row-key').textContent())?.trim()).toBe('••• set');

    // "Admins only" saves and shows on the row; with "Default" too, the refusal sits under it and nothing is saved.
    await row.getByTestId('model-edit').click();
    await editor.getByTestId('model-admins-only').check();
    await editor.getByTestId('model-is-default').check();
    await editor.getByTestId('model-editor-save').click();
    expect(await editor.getByTestId('model-adminsOnly-issue').textContent()).toBe('The default model cannot be for admins only');
    await editor.getByTestId('model-is-default').uncheck();
    await editor.getByTestId('model-editor-save').click();
    await editor.waitFor({ state: 'detached' });
    await row.getByTestId('model-admins-only-badge').waitFor();
    expect((await api<{ items: { name: string; adminsOnly: boolean; isDefault: boolean }[] }>('/api/models')).items.find((model) => model.name === MODEL_NAME)).toMatchObject({ adminsOnly: true, isDefault: false });
    await row.getByTestId('model-edit').click();
    await editor.getByTestId('model-admins-only').uncheck();
    await editor.getByTestId('model-editor-save').click();
    await editor.waitFor({ state: 'detached' });
    await expect.poll(() => row.getByTestId('model-admins-only-badge').count()).toBe(0);
  });

  it('creates an agent with that model and two tools, one always needing approval', async () => {
    await page.goto(`${stack.url}/admin`);
    await page.getByTestId('admin-entry-agents').click();
    await page.waitForURL(`${stack.url}/admin/agents`);

    await page.getByTestId('agent-new').click();
    const editor = page.getByTestId('agent-editor');
    await editor.getByTestId('agent-name').fill(AGENT_NAME);
    await editor.getByTestId('agent-system-prompt').fill('Answer in one sentence.');
    await editor.getByTestId('agent-model').selectOption({ label: MODEL_NAME });
    await editor.getByTestId('agent-max-steps').fill('5');
    await editor.getByTestId(`agent-tool-row-${tools.plain.slug}`).getByTestId('agent-tool-offer').check();
    const guardedRow = editor.getByTestId(`agent-tool-row-${tools.guarded.slug}`);
    await guardedRow.getByTestId('agent-tool-offer').check();
    await guardedRow.getByTestId('agent-tool-approval').selectOption('always');
    expect((await editor.getByTestId('agent-tools-count').textContent())?.trim()).toMatch(/^2 of \d+ offered$/);
    await editor.getByTestId('agent-editor-save').click();
    await editor.waitFor({ state: 'detached' });

    await page.reload();
    const row = page.getByTestId('agent-row').filter({ hasText: AGENT_NAME });
    expect((await row.getByTestId('agent-row-model').textContent())?.trim()).toBe(MODEL_NAME);
    const listed = row.getByTestId('agent-row-tool');
    await listed.first().waitFor();
    expect(await listed.count()).toBe(2);
    expect(await row.locator(`[data-tool-slug="${tools.guarded.slug}"]`).getByTestId('agent-row-tool-approval').count()).toBe(1);
    expect(await row.locator(`[data-tool-slug="${tools.plain.slug}"]`).getByTestId('agent-row-tool-approval').count()).toBe(0);
    await page.getByTestId('agent-row').filter({ hasText: 'Default agent' }).getByTestId('agent-default-badge').waitFor();

    const agent = await findAgent(AGENT_NAME);
    expect(agent).toMatchObject({ model: { name: MODEL_NAME } });
    expect(agent?.tools).toEqual(
      expect.arrayContaining([
        { toolId: tools.plain.id, needsApproval: null, tool: expect.objectContaining({ slug: tools.plain.slug }) },
        { toolId: tools.guarded.id, needsApproval: true, tool: expect.objectContaining({ slug: tools.guarded.slug }) },
      ]),
    );
  });

  it('removes a tool from the agent when it is unchecked in the editor', async () => {
    await page.goto(`${stack.url}/admin/agents`);
    const row = page.getByTestId('agent-row').filter({ hasText: AGENT_NAME });
    await row.getByTestId('agent-edit').click();
    const editor = page.getByTestId('agent-editor');
    const plainOffer = editor.getByTestId(`agent-tool-row-${tools.plain.slug}`).getByTestId('agent-tool-offer');
    expect(await plainOffer.isChecked()).toBe(true);
    expect(await editor.getByTestId(`agent-tool-row-${tools.guarded.slug}`).getByTestId('agent-tool-approval').inputValue()).toBe('always');
    await plainOffer.uncheck();
    await editor.getByTestId('agent-editor-save').click();
    await editor.waitFor({ state: 'detached' });

    await page.reload();
    const listed = page.getByTestId('agent-row').filter({ hasText: AGENT_NAME }).getByTestId('agent-row-tool');
    await listed.first().waitFor();
    expect(await listed.count()).toBe(1);
    expect(await listed.first().getAttribute('data-tool-slug')).toBe(tools.guarded.slug);
    expect((await findAgent(AGENT_NAME))?.tools.map((tool) => [tool.toolId, tool.needsApproval])).toEqual([[tools.guarded.id, true]]);
  });
});
