import { createServer } from 'node:http';
import { agentToolLogs, agentTools } from '@agentq/shared/db';
import { decryptSecret } from '@agentq/shared/services';
import { startPetstoreServer, startTestMcpServer, type TestMcpServer } from '@agentq/shared/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestApp, TEST_APP_SECRET, type startWorkerProcess } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let mcp: TestMcpServer;
let worker: Awaited<ReturnType<typeof startWorkerProcess>> | undefined;

beforeAll(async () => {
  t = await createTestApp({ allowPrivateNetworks: true });
  admin = await t.signUp('admin');
  mcp = await startTestMcpServer();
  worker = await t.startWorker();
}, 90_000);

afterAll(async () => {
  await worker?.stop();
  await mcp.close();
  await t.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = admin.headers) => t.app.request(path, { method: 'POST', headers, body: JSON.stringify(body) });
const put = (path: string, body: unknown) => t.app.request(path, { method: 'PUT', headers: admin.headers, body: JSON.stringify(body) });
const get = (path: string) => t.app.request(path, { headers: admin.headers });
let counter = 0;
const slug = (base: string) => `${base}${Date.now().toString(36)}${counter++}`;

type DiscoveredView = { name: string; modelName: string | null; allowed: boolean; needsApproval: boolean; effect: string; inputSchema: Record<string, unknown> };

describe('MCP tool instances', () => {
  it('discovers on create, lists the tools with schemas, allowed and approval flags, and keeps header values write-only', async () => {
    const toolSlug = slug('weather');
    const created = await post('/api/agent-tools', {
      name: 'Weather MCP',
      slug: toolSlug,
      type: 'mcp',
      config: { url: mcp.url, allowedTools: ['get_weather', 'create_ticket'], approvalRequired: ['create_ticket'] },
      secrets: { headers: { Authorization: 'Bearer mcp-secret-value' } },
    });
    expect(created.status).toBe(201);
    const text = await created.text();
    expect(text).not.toContain('mcp-secret-value');
    const body = JSON.parse(text);
    expect(body.secretsEncrypted).toBeUndefined();
    expect(body.secretsSet).toEqual(['headers.Authorization']);
    expect(body.discoveryError).toBeNull();
    expect(body.discovery.server).toMatchObject({ name: 'agentq-test-mcp', transport: 'streamable-http' });
    const byName = Object.fromEntries((body.discoveredTools as DiscoveredView[]).map((tool) => [tool.name, tool]));
    expect(byName.get_weather).toMatchObject({ modelName: `${toolSlug}__get_weather`, allowed: true, needsApproval: false, effect: 'none' });
    expect(byName.get_weather!.inputSchema).toMatchObject({ properties: { city: { type: 'string' } } });
    expect(byName.create_ticket).toMatchObject({ modelName: `${toolSlug}__create_ticket`, allowed: true, needsApproval: true });
    expect(byName.broken).toMatchObject({ modelName: null, allowed: false });
    // The server saw the secret header; the database holds it encrypted.
    expect(mcp.requests.some((request) => request.headers.authorization === 'Bearer mcp-secret-value')).toBe(true);
    const [row] = await t.db.select().from(agentTools).where(eq(agentTools.id, body.id));
    expect(row!.secretsEncrypted).not.toContain('mcp-secret-value');
    expect(JSON.parse(decryptSecret(row!.secretsEncrypted!, TEST_APP_SECRET))).toEqual({ headers: { Authorization: 'Bearer mcp-secret-value' }, env: {} });
    // GET /api/agent-tools/:id shows the same.
    const fetched = await (await get(`/api/agent-tools/${body.id}`)).json();
    expect(fetched.discoveredTools.map((tool: DiscoveredView) => tool.name)).toEqual(body.discoveredTools.map((tool: DiscoveredView) => tool.name));
    // Updating other fields keeps the secrets; sending secrets replaces them.
    await put(`/api/agent-tools/${body.id}`, { description: 'Weather tools' });
    expect((await (await get(`/api/agent-tools/${body.id}`)).json()).secretsSet).toEqual(['headers.Authorization']);
    const cleared = await (await put(`/api/agent-tools/${body.id}`, { secrets: {} })).json();
    expect(cleared.secretsSet).toEqual([]);
  });

  it('refreshes after the server adds a tool; a server that is down answers 502 and keeps the last snapshot', async () => {
    const server = await startTestMcpServer();
    const created = await (await post('/api/agent-tools', { name: 'Refresh', slug: slug('refresh'), type: 'mcp', config: { url: server.url } })).json();
    expect(created.discoveredTools.map((tool: DiscoveredView) => tool.name)).not.toContain('translate');
    server.addTool({ name: 'translate', description: 'Translate text', inputSchema: { text: z.string() }, handler: () => ({ content: [{ type: 'text', text: 'ok' }] }) });
    const refreshed = await post(`/api/agent-tools/${created.id}/refresh`, {});
    expect(refreshed.status).toBe(200);
    const names = (await refreshed.json()).discoveredTools.map((tool: DiscoveredView) => tool.name);
    expect(names).toContain('translate');

    await server.close();
    const failed = await post(`/api/agent-tools/${created.id}/refresh`, {});
    expect(failed.status).toBe(502);
    const error = (await failed.json()).error;
    expect(error.code).toBe('discovery_failed');
    expect(error.message).toMatch(/refused the connection/);
    const kept = await (await get(`/api/agent-tools/${created.id}`)).json();
    expect(kept.discoveryError).toMatch(/refused the connection/);
    expect(kept.discoveredTools.map((tool: DiscoveredView) => tool.name)).toEqual(names);
  });

  it('rediscovers when the config changes; a server that answers garbage keeps the last snapshot', async () => {
    const orders = await startTestMcpServer({
      tools: [{ name: 'lookup_order', description: 'Finds an order.', inputSchema: { id: z.string() }, handler: () => ({ content: [{ type: 'text', text: 'ok' }] }) }],
    });
    const garbage = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"hello": "world"}'));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    try {
      const created = await (await post('/api/agent-tools', { name: 'Moves', slug: slug('moves'), type: 'mcp', config: { url: mcp.url } })).json();
      expect(created.discoveredTools.map((tool: DiscoveredView) => tool.name)).toContain('get_weather');
      // A new URL: the API asks the new server and the snapshot is its tools.
      const moved = await put(`/api/agent-tools/${created.id}`, { config: { url: orders.url } });
      expect(moved.status).toBe(200);
      const movedBody = await moved.json();
      expect(movedBody.discoveryError).toBeNull();
      expect(movedBody.discoveredTools.map((tool: DiscoveredView) => tool.name)).toEqual(['lookup_order']);
      // A URL whose server answers garbage: the reason is shown and the last good snapshot stays.
      const garbageUrl = `http://127.0.0.1:${(garbage.address() as { port: number }).port}/mcp`;
      const broken = await (await put(`/api/agent-tools/${created.id}`, { config: { url: garbageUrl } })).json();
      expect(broken.discoveryError).toMatch(/^Discovery failed: .*MCP server/);
      expect(broken.discoveredTools.map((tool: DiscoveredView) => tool.name)).toEqual(['lookup_order']);
      const refreshed = await post(`/api/agent-tools/${created.id}/refresh`, {});
      expect(refreshed.status).toBe(502);
      expect((await (await get(`/api/agent-tools/${created.id}`)).json()).discoveredTools.map((tool: DiscoveredView) => tool.name)).toEqual(['lookup_order']);
    } finally {
      await orders.close();
      await new Promise<void>((resolve) => garbage.close(() => resolve()));
    }
  });

  it('creates an instance whose server is down, with the reason in discoveryError', async () => {
    const server = await startTestMcpServer();
    await server.close();
    const response = await post('/api/agent-tools', { name: 'Down', slug: slug('down'), type: 'mcp', config: { url: server.url } });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body.discoveryError).toMatch(/^Discovery failed: The MCP server refused the connection/);
    expect(body.discoveredTools).toEqual([]);
  });

  it('answers 400 for bad secrets, 409 when refreshing a plain tool, 400 when execute names no MCP tool', async () => {
    const bad = await post('/api/agent-tools', { name: 'Bad', slug: slug('bad'), type: 'mcp', config: { url: mcp.url }, secrets: { headers: { 'bad header': 'x' } } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.issues[0].path).toEqual(['secrets', 'headers', 'bad header']);
    const calculator = await (await post('/api/agent-tools', { name: 'Calc', slug: slug('calc'), type: 'calculator', secrets: { token: 'x' } })).json();
    expect(calculator.error.issues[0].path).toEqual(['secrets']);
    const plain = await (await post('/api/agent-tools', { name: 'Calc', slug: slug('calc'), type: 'calculator' })).json();
    expect((await post(`/api/agent-tools/${plain.id}/refresh`, {})).status).toBe(409);
    const instance = await (await post('/api/agent-tools', { name: 'Exec', slug: slug('exec'), type: 'mcp', config: { url: mcp.url, allowedTools: ['get_weather'] } })).json();
    const missing = await post(`/api/agent-tools/${instance.id}/execute`, { input: {} });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.issues[0].message).toMatch(/get_weather/);
    expect((await post(`/api/agent-tools/${instance.id}/execute`, { tool: 'broken', input: {} })).status).toBe(400);
  });

  it('executes one MCP tool through the queue and logs it under its model name', async () => {
    const toolSlug = slug('exec');
    const instance = await (await post('/api/agent-tools', { name: 'Exec', slug: toolSlug, type: 'mcp', config: { url: mcp.url } })).json();
    const response = await post(`/api/agent-tools/${instance.id}/execute`, { tool: 'get_weather', input: { city: 'Coimbra' } });
    expect(response.status).toBe(200);
    const { result, runId } = await response.json();
    expect(result.success).toBe(true);
    expect(result.data).toContain('Weather in Coimbra');
    const failed = await (await post(`/api/agent-tools/${instance.id}/execute`, { tool: `${toolSlug}__broken`, input: {} })).json();
    expect(failed.result).toMatchObject({ success: false, error: 'broken reported an error: database unavailable' });
    const [log] = await t.db.select().from(agentToolLogs).where(eq(agentToolLogs.runId, runId));
    expect(log).toMatchObject({ toolSlug: `${toolSlug}__get_weather`, status: 'success' });
  }, 60_000);

  it('asks to confirm executing a discovered tool that needs approval, and runs it once confirmed', async () => {
    const instance = await (await post('/api/agent-tools', { name: 'Gated', slug: slug('gated'), type: 'mcp', config: { url: mcp.url, approvalRequired: ['get_weather'] } })).json();
    const refused = await post(`/api/agent-tools/${instance.id}/execute`, { tool: 'get_weather', input: { city: 'Braga' } });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toMatchObject({ code: 'confirmation_required', details: { needsApproval: true } });
    const confirmed = await post(`/api/agent-tools/${instance.id}/execute`, { tool: 'get_weather', input: { city: 'Braga' }, confirm: true });
    expect(confirmed.status).toBe(200);
    expect((await confirmed.json()).result.data).toContain('Weather in Braga');
  }, 60_000);
});

describe('OpenAPI tool instances', () => {
  it('imports a petstore spec: operations listed in GET /api/agent-tools/:id with schemas, allow-list and approval flags; token write-only', async () => {
    const petstore = await startPetstoreServer();
    try {
      const toolSlug = slug('pets');
      const created = await post('/api/agent-tools', {
        name: 'Pets',
        slug: toolSlug,
        type: 'openapi',
        config: { specUrl: petstore.specUrl, operations: ['listPets', 'updatePet'], approvalRequired: ['updatePet'], auth: { type: 'bearer' } },
        secrets: { token: 'pets-token-value' },
      });
      expect(created.status).toBe(201);
      const id = (await created.json()).id;
      const response = await get(`/api/agent-tools/${id}`);
      const text = await response.text();
      expect(text).not.toContain('pets-token-value');
      const body = JSON.parse(text);
      expect(body.secretsSet).toEqual(['token']);
      expect(body.discovery.server).toMatchObject({ name: 'Petstore' });
      const tools = Object.fromEntries((body.discoveredTools as DiscoveredView[]).map((tool) => [tool.name, tool]));
      expect(Object.keys(tools)).toEqual(['listPets', 'createPet', 'showPetById', 'updatePet', 'delete_pets_petId']);
      expect(tools.updatePet).toMatchObject({ modelName: `${toolSlug}__updatePet`, allowed: true, needsApproval: true, effect: 'idempotent' });
      expect(tools.updatePet!.inputSchema).toMatchObject({ required: ['petId', 'body'] });
      expect(tools.createPet).toMatchObject({ allowed: false, modelName: null, effect: 'non-idempotent' });
      expect(tools.listPets).toMatchObject({ allowed: true, needsApproval: false, effect: 'none' });
      const listed = (await (await get('/api/agent-tools')).json()).items.find((item: { id: string }) => item.id === id);
      expect(listed.discoveredTools).toHaveLength(5);
    } finally {
      await petstore.close();
    }
  });

  it('answers 400 with the issue for an invalid openapi config', async () => {
    const response = await post('/api/agent-tools', { name: 'Bad', slug: slug('badapi'), type: 'openapi', config: { auth: { type: 'oauth' } } });
    expect(response.status).toBe(400);
    expect((await response.json()).error.issues[0].path).toEqual(['config', 'auth', 'type']);
  });
});
