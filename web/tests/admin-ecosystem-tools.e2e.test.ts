import { startPetstoreServer, startTestMcpServer, type PetstoreServer, type TestMcpServer } from '@agentq/shared/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startStack, type Stack } from '../../infra/testing/start-stack.ts';
import { launchBrowser, type LaunchedBrowser } from './browser.ts';
import { createByApi, logInByApi, logInByBrowser } from './fixtures.ts';

describe('admin tools UI: MCP servers and OpenAPI imports', () => {
  let stack: Stack;
  let browser: LaunchedBrowser;
  let page: Page;
  let petstore: PetstoreServer;
  let mcp: TestMcpServer;

  beforeAll(async () => {
    petstore = await startPetstoreServer();
    mcp = await startTestMcpServer();
    stack = await startStack();
    const headers = await logInByApi(stack);
    await createByApi(stack, headers, '/api/agent-tools', {
      name: 'Pets',
      slug: 'pets',
      type: 'openapi',
      config: { specUrl: petstore.specUrl, operations: ['listPets', 'updatePet'], approvalRequired: ['updatePet'] },
      secrets: { token: 'never-shown-token' },
    });
    await createByApi(stack, headers, '/api/agent-tools', { name: 'Weather', slug: 'wx', type: 'mcp', config: { url: mcp.url } });
    browser = await launchBrowser();
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await logInByBrowser(page, stack);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await petstore?.close();
    await mcp?.close();
  });

  async function openEditor(slug: string) {
    await page.goto(`${stack.url}/admin/tools`);
    await page.getByTestId(`tool-row-${slug}`).getByTestId('tool-action-edit').click();
    await page.getByTestId('discovered-tools').waitFor();
  }

  it('lists the operations of an imported OpenAPI document with schemas, offered and approval flags', async () => {
    await openEditor('pets');
    const section = page.getByTestId('discovered-tools');
    await expect.poll(() => section.getByTestId('discovered-summary').textContent()).toContain('2 of 5 offered to the model');
    expect(await section.getByTestId('discovered-summary').textContent()).toContain('Petstore 1.0.0');
    const update = section.getByTestId('discovered-tool-updatePet');
    expect(await update.getByTestId('discovered-tool-name').textContent()).toBe('pets__updatePet');
    expect(await update.getByTestId('discovered-tool-allowed').isVisible()).toBe(true);
    expect(await update.getByTestId('discovered-tool-approval').isVisible()).toBe(true);
    await update.locator('summary').click();
    const schema = JSON.parse((await update.getByTestId('discovered-tool-schema').textContent()) ?? '{}');
    expect(schema).toMatchObject({ required: ['petId', 'body'], properties: { petId: { type: 'string' }, body: { type: 'object' } } });
    const create = section.getByTestId('discovered-tool-createPet');
    expect(await create.getByTestId('discovered-tool-not-allowed').isVisible()).toBe(true);
    expect(await create.getByTestId('discovered-tool-approval').count()).toBe(0);
    // The token is write-only: its name shows, never its value.
    expect(await page.getByTestId('tool-secrets-set').textContent()).toContain('Set: token');
    expect(await page.content()).not.toContain('never-shown-token');
  });

  it('executes one operation by hand: the admin picks it and fills its own input form', async () => {
    await page.goto(`${stack.url}/admin/tools`);
    await page.getByTestId('tool-row-pets').getByTestId('tool-action-execute').click();
    const picker = page.getByTestId('execute-pick-tool');
    expect(await picker.locator('option').allTextContents()).toEqual(['pets__listPets', 'pets__updatePet']);
    await picker.selectOption('listPets');
    await page.getByTestId('execute-run').click();
    await page.getByTestId('execute-result').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('execute-result').textContent()).toContain('"name":"Rex"');
    expect(petstore.requests.at(-1)).toMatchObject({ method: 'GET', url: '/pets' });
  });

  it('refreshes an MCP server after it adds a tool, and shows why a refresh failed', async () => {
    await openEditor('wx');
    const section = page.getByTestId('discovered-tools');
    expect(await section.getByTestId('discovered-tool-get_weather').getByTestId('discovered-tool-name').textContent()).toBe('wx__get_weather');
    expect(await section.getByTestId('discovered-tool-translate').count()).toBe(0);
    mcp.addTool({ name: 'translate', description: 'Translates text.', inputSchema: { text: z.string() }, handler: () => ({ content: [{ type: 'text', text: 'ok' }] }) });
    await section.getByTestId('discovered-refresh').click();
    await section.getByTestId('discovered-tool-translate').waitFor();
    expect(await section.getByTestId('discovered-tool-translate').getByTestId('discovered-tool-name').textContent()).toBe('wx__translate');

    await mcp.close();
    await section.getByTestId('discovered-refresh').click();
    await section.getByTestId('discovered-error').waitFor();
    expect(await section.getByTestId('discovered-error').textContent()).toContain('refused the connection');
    // The last good snapshot stays listed.
    expect(await section.getByTestId('discovered-tool-translate').isVisible()).toBe(true);
  });
});
