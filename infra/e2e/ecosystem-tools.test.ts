import type { RunEvent } from '@agentq/shared/events';
import { startPetstoreServer, startTestMcpServer, type PetstoreServer, type TestMcpServer } from '@agentq/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';
import { byLastUserMessage, lastUserMessageText, requestToolNames, toolResultsSinceLastUserMessage, type ChatCompletionRequest } from '../fake-llm/scripts';
import { ApiClient } from '../testing/api-client';
import { startProcessStack, type ProcessStack } from '../testing/process-stack';

let stack: ProcessStack;
let llm: FakeLlm;
let mcp: TestMcpServer;
let petstore: PetstoreServer;
let admin: ApiClient;
let user: ApiClient;
const offeredTools: string[][] = [];

/** "call <tool> <json>": the model calls that tool once, then answers with what the tool said. */
function callRule(request: ChatCompletionRequest) {
  offeredTools.push(requestToolNames(request));
  const results = toolResultsSinceLastUserMessage(request);
  if (results.length > 0) return { text: `Answer: ${results.map((result) => result.content).join(' | ')}` };
  const [, name, json] = /^call (\S+)\s*(.*)$/.exec(lastUserMessageText(request) ?? '')!;
  return { toolCalls: [{ name: name!, input: JSON.parse(json || '{}') }] };
}

async function startRun(content: string) {
  const session = await user.post('/api/sessions', {});
  const run = await user.post(`/api/sessions/${session.body.id}/runs`, { content });
  expect(run.status).toBe(202);
  return run.body.runId as string;
}

async function waitForRun(runId: string, status = 'succeeded') {
  await expect.poll(async () => (await user.get(`/api/runs/${runId}`)).body.status, { timeout: 30_000, interval: 100 }).toBe(status);
  return (await user.get(`/api/runs/${runId}`)).body;
}

function finalText(events: RunEvent[]) {
  return events
    .filter((event) => event.chunk.type === 'text-delta')
    .map((event) => (event.chunk as { delta: string }).delta)
    .join('');
}

beforeAll(async () => {
  mcp = await startTestMcpServer();
  petstore = await startPetstoreServer();
  llm = await startFakeLlm({ script: byLastUserMessage([{ match: /^call /, reply: callRule }]) });
  stack = await startProcessStack({ workers: 1 });
  admin = await ApiClient.login(stack.apiUrl, stack.admin);
  await admin.post('/api/models', { name: 'Fake', baseUrl: llm.url, modelId: 'fake' });
  const created = await admin.post('/api/agent-tools', {
    name: 'Weather',
    slug: 'wx',
    type: 'mcp',
    config: { url: mcp.url, allowedTools: ['get_weather', 'create_ticket', 'broken', 'slow'], approvalRequired: ['create_ticket'] },
    secrets: { headers: { Authorization: 'Bearer e2e-token' } },
  });
  expect(created.status).toBe(201);
  expect(created.body.discoveryError).toBeNull();
  const pets = await admin.post('/api/agent-tools', { name: 'Pets', slug: 'pets', type: 'openapi', config: { specUrl: petstore.specUrl, operations: ['updatePet', 'showPetById'] } });
  expect(pets.status).toBe(201);
  expect(pets.body.discoveryError).toBeNull();
  const credentials = { email: `mcp-${Date.now()}@test.local`, password: 'user-password-1' };
  await admin.post('/api/users', { ...credentials, name: 'MCP user' });
  user = await ApiClient.login(stack.apiUrl, credentials);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await llm?.close();
  await mcp?.close();
  await petstore?.close();
});

describe('chat runs with MCP tools', () => {
  it('offers <slug>__<tool> for each allowed tool; the model calls one and the answer carries the server result', async () => {
    const runId = await startRun('call wx__get_weather {"city":"Lisbon"}');
    await waitForRun(runId);
    expect(offeredTools.at(-1)).toEqual(expect.arrayContaining(['wx__get_weather', 'wx__create_ticket', 'wx__broken', 'wx__slow']));
    expect(offeredTools.at(-1)).not.toContain('wx__snapshot');
    // The model sees the server's description and input schema for that tool.
    const offered = llm.requests.at(-1)!.tools!.find((tool) => tool.function.name === 'wx__get_weather')!.function;
    expect(offered.description).toContain('Current weather for a city.');
    expect(offered.parameters).toMatchObject({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
    const { events } = await user.readEvents(runId);
    expect(finalText(events)).toContain('Weather in Lisbon: 21°C and sunny');
    expect(finalText(events)).toContain('untrusted-content');
    expect(mcp.calls.at(-1)).toEqual({ name: 'get_weather', args: { city: 'Lisbon' } });
    // The worker sent the secret header.
    expect(mcp.requests.filter((request) => request.headers.authorization === 'Bearer e2e-token').length).toBeGreaterThan(1);
    const logs = await admin.get(`/api/tool-logs?runId=${runId}`);
    expect(logs.body.items[0]).toMatchObject({ toolSlug: 'wx__get_weather', status: 'success' });
  });

  it('parks the run when an MCP tool needs approval, and calls the server only after approve', async () => {
    const runId = await startRun('call wx__create_ticket {"title":"Printer on fire"}');
    let approval: { id: string; status: string; toolName: string } | undefined;
    await expect
      .poll(async () => {
        approval = (await user.get(`/api/approvals?runId=${runId}`)).body.items[0];
        return approval?.status;
      }, { timeout: 20_000, interval: 100 })
      .toBe('pending');
    expect(approval!.toolName).toBe('wx__create_ticket');
    await expect.poll(async () => (await user.get(`/api/runs/${runId}`)).body.status).toBe('awaiting_approval');
    expect(mcp.calls.some((call) => call.name === 'create_ticket')).toBe(false);
    expect((await user.post(`/api/approvals/${approval!.id}`, { decision: 'approve' })).status).toBe(200);
    await waitForRun(runId);
    const { events } = await user.readEvents(runId);
    expect(finalText(events)).toContain('Ticket T-42 created: Printer on fire');
  });

  it('an isError result is a failed call the model is told not to retry', async () => {
    const runId = await startRun('call wx__broken {}');
    await waitForRun(runId);
    const { events } = await user.readEvents(runId);
    const output = events.find((event) => event.chunk.type === 'tool-output-available')!.chunk as { output: { success: boolean; text: string } };
    expect(output.output.success).toBe(false);
    expect(output.output.text).toContain('database unavailable');
    expect(output.output.text).toContain('Do not call wx__broken again');
  });

  it('cancelling the run sends notifications/cancelled to the server', async () => {
    const before = mcp.cancelled.length;
    const notificationsBefore = mcp.cancelNotifications.length;
    const runId = await startRun('call wx__slow {}');
    await expect.poll(() => mcp.calls.filter((call) => call.name === 'slow').length, { timeout: 20_000 }).toBeGreaterThan(0);
    expect((await user.post(`/api/runs/${runId}/cancel`, {})).status).toBeLessThan(300);
    await waitForRun(runId, 'cancelled');
    // The server received notifications/cancelled, and its handler was stopped by it.
    await expect.poll(() => mcp.cancelNotifications.length, { timeout: 10_000 }).toBe(notificationsBefore + 1);
    await expect.poll(() => mcp.cancelled.length, { timeout: 10_000 }).toBe(before + 1);
  });
});

describe('chat runs with OpenAPI tools', () => {
  it('the model calls an operation with path and body parameters and the answer carries the API response', async () => {
    const runId = await startRun('call pets__updatePet {"petId":"7","body":{"name":"Fido","tag":"dog"}}');
    await waitForRun(runId);
    expect(offeredTools.at(-1)).toEqual(expect.arrayContaining(['pets__updatePet', 'pets__showPetById']));
    expect(offeredTools.at(-1)).not.toContain('pets__createPet');
    const request = petstore.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'PUT', url: '/pets/7' });
    expect(JSON.parse(request.body)).toEqual({ name: 'Fido', tag: 'dog' });
    const { events } = await user.readEvents(runId);
    expect(finalText(events)).toContain('{"updated":{"id":"7","name":"Fido","tag":"dog"}');
    const logs = await admin.get(`/api/tool-logs?runId=${runId}`);
    expect(logs.body.items[0]).toMatchObject({ toolSlug: 'pets__updatePet', status: 'success' });
  });
});
