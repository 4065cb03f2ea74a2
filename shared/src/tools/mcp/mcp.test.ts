import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { DiscoverContext, ExpandedTool, ToolContext } from '../define-tool-type';
import { expandToolRows } from '../model-tools';
import { McpConnectionPool } from './connection-pool';
import { mcpToolType } from './index';
import { startTestMcpServer, type TestMcpServer } from './test-server';

const config = (overrides: Record<string, unknown> = {}) => mcpToolType.configSchema.parse(overrides);

function discoverContext(overrides: Partial<DiscoverContext> = {}): DiscoverContext {
  return { signal: AbortSignal.timeout(10_000), allowPrivateNetworks: true, secrets: {}, services: {}, ...overrides };
}

function callContext(call: ExpandedTool, overrides: Partial<ToolContext> = {}): ToolContext {
  return { userId: null, runId: null, sessionId: null, toolCallId: null, signal: AbortSignal.timeout(20_000), allowPrivateNetworks: true, services: {}, secrets: {}, call, ...overrides };
}

async function expanded(server: TestMcpServer, overrides: Record<string, unknown> = {}) {
  const parsed = config({ url: server.url, ...overrides });
  const discovery = await mcpToolType.discover!(parsed, discoverContext());
  return { parsed, discovery, tools: mcpToolType.expand!(parsed, discovery) };
}

let server: TestMcpServer;

beforeAll(async () => {
  server = await startTestMcpServer();
});
afterEach(async () => {
  await mcpToolType.dispose!();
});
afterAll(async () => {
  await server.close();
});

describe('mcp tool type against a real MCP server on loopback', () => {
  it('discovers every tool with its schema, annotations and effect class', async () => {
    const { discovery } = await expanded(server);
    expect(discovery.server).toMatchObject({ name: 'agentq-test-mcp', transport: 'streamable-http' });
    const byName = Object.fromEntries(discovery.tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName)).toEqual(['get_weather', 'create_ticket', 'broken', 'snapshot', 'slow']);
    expect(byName.get_weather).toMatchObject({ description: 'Current weather for a city.', effect: 'none', title: 'Weather' });
    expect(byName.get_weather!.inputSchema).toMatchObject({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
    expect(byName.create_ticket!.effect).toBe('non-idempotent');
    expect(byName.broken!.effect).toBe('non-idempotent');
    expect(byName.slow!.effect).toBe('idempotent');
  });

  it('applies the allow-list and the approval list', async () => {
    const { tools } = await expanded(server, { allowedTools: ['get_weather', 'create_ticket'], approvalRequired: ['create_ticket'] });
    expect(tools.map((tool) => [tool.name, tool.needsApproval])).toEqual([
      ['get_weather', false],
      ['create_ticket', true],
    ]);
  });

  it('calls a tool: text joined, structured content as JSON, fenced as untrusted; one connection reused', async () => {
    const { parsed, tools } = await expanded(server);
    const weather = tools.find((tool) => tool.name === 'get_weather')!;
    const sessionsBefore = server.sessions();
    const first = await mcpToolType.execute({ city: 'Lisbon' }, parsed, callContext(weather));
    expect(first.success).toBe(true);
    expect(first.data).toContain('Weather in Lisbon: 21°C and sunny');
    expect(first.data).toContain('"celsius": 21');
    expect(first.data).toMatch(/untrusted data from a third party[\s\S]*<untrusted-content id="[0-9a-f]+">/);
    await mcpToolType.execute({ city: 'Porto' }, parsed, callContext(weather));
    expect(server.sessions() - sessionsBefore).toBe(1);
    expect(server.calls.filter((call) => call.name === 'get_weather').map((call) => call.args.city)).toEqual(['Lisbon', 'Porto']);
  });

  it('turns isError into a failed call', async () => {
    const { parsed, tools } = await expanded(server);
    const result = await mcpToolType.execute({}, parsed, callContext(tools.find((tool) => tool.name === 'broken')!));
    expect(result).toMatchObject({ success: false, error: 'broken reported an error: database unavailable' });
  });

  it('summarises images and resources instead of dumping them', async () => {
    const { parsed, tools } = await expanded(server);
    const result = await mcpToolType.execute({}, parsed, callContext(tools.find((tool) => tool.name === 'snapshot')!));
    expect(result.data).toContain('[image: image/png, 300 bytes]');
    expect(result.data).toContain('[resource: file:///report.txt, text/plain, 5000 characters]');
    expect(result.data).not.toContain('xxxxxxxxxx');
  });

  it('sends notifications/cancelled when the call is aborted, and on timeout', async () => {
    const { parsed, tools } = await expanded(server);
    const slow = tools.find((tool) => tool.name === 'slow')!;
    const controller = new AbortController();
    const pending = mcpToolType.execute({}, parsed, callContext(slow, { signal: controller.signal }));
    await expect.poll(() => server.calls.filter((call) => call.name === 'slow').length).toBe(1);
    controller.abort();
    expect(await pending).toMatchObject({ success: false, metadata: { cancelled: true } });
    // The notification itself reached the server, and the server stopped the handler because of it.
    await expect.poll(() => server.cancelNotifications.length).toBe(1);
    await expect.poll(() => server.cancelled.length).toBe(1);

    const timedOut = await mcpToolType.execute({}, { ...parsed, timeout: 1000 }, callContext(slow));
    expect(timedOut).toMatchObject({ success: false, metadata: { timedOut: true } });
    await expect.poll(() => server.cancelNotifications.length).toBe(2);
    await expect.poll(() => server.cancelled.length).toBe(2);
    expect(server.cancelNotifications[1]!.reason).toMatch(/timed out/i);
    // Each notification names a different request (the two tools/call requests).
    expect(new Set(server.cancelNotifications.map((notification) => notification.requestId)).size).toBe(2);
  });

  it('closes a pooled connection nobody used for the idle time (a tool whose config changed), never one in use', async () => {
    const pool = new McpConnectionPool({ idleMs: 50 });
    const options = { allowPrivateNetworks: true, stdioCommands: [] };
    const oldConfig = config({ url: server.url, timeout: 5000 });
    const newConfig = config({ url: server.url, timeout: 6000, allowedTools: ['get_weather'] });
    try {
      const noSecrets = { headers: {}, env: {} };
      const old = await pool.get(oldConfig, noSecrets, options);
      await pool.release(old);
      const busy = await pool.get(newConfig, { headers: { 'x-key': 'k' }, env: {} }, options);
      await new Promise((resolve) => setTimeout(resolve, 80));
      await pool.closeIdle();
      expect(old.closed).toBe(true);
      expect(busy.closed).toBe(false);
      expect(pool.size).toBe(1);
      // Released, it idles out too; meanwhile a new get on the old config connects afresh.
      await pool.release(busy);
      const again = await pool.get(oldConfig, noSecrets, options);
      expect(again).not.toBe(old);
      expect((await again.client.listTools()).tools.length).toBeGreaterThan(0);
      await pool.release(again);
      await new Promise((resolve) => setTimeout(resolve, 80));
      await pool.closeIdle();
      expect([busy.closed, again.closed, pool.size]).toEqual([true, true, 0]);
    } finally {
      await pool.closeAll();
    }
  });

  it('reconnects when the connection drops', async () => {
    const { parsed, tools } = await expanded(server);
    const weather = tools.find((tool) => tool.name === 'get_weather')!;
    expect((await mcpToolType.execute({ city: 'Faro' }, parsed, callContext(weather))).success).toBe(true);
    const sessions = server.sessions();
    await server.dropSessions();
    const again = await mcpToolType.execute({ city: 'Braga' }, parsed, callContext(weather));
    expect(again.success).toBe(true);
    expect(again.data).toContain('Weather in Braga');
    expect(server.sessions()).toBe(sessions + 1);
  });

  it('sends the secret headers to the server', async () => {
    const parsed = config({ url: server.url });
    await mcpToolType.discover!(parsed, discoverContext({ secrets: { headers: { Authorization: 'Bearer s3cret-token' } } }));
    expect(server.requests.some((request) => request.headers.authorization === 'Bearer s3cret-token')).toBe(true);
  });

  it('follows every page of tools/list', async () => {
    const paged = await startTestMcpServer({ pageSize: 2 });
    try {
      const { discovery } = await expanded(paged);
      expect(discovery.tools.map((tool) => tool.name)).toEqual(['get_weather', 'create_ticket', 'broken', 'snapshot', 'slow']);
      expect(paged.listCursors).toEqual([undefined, '2', '4']);
      expect(discovery.tools.find((tool) => tool.name === 'get_weather')).toMatchObject({ effect: 'none', inputSchema: { properties: { city: { type: 'string' } } } });
    } finally {
      await paged.close();
    }
  });

  it('sees a tool the server added after the last discovery', async () => {
    const before = await expanded(server);
    expect(before.tools.map((tool) => tool.name)).not.toContain('translate');
    server.addTool({ name: 'translate', description: 'Translates text.', inputSchema: { text: z.string() }, handler: (args) => ({ content: [{ type: 'text', text: `olá (${String(args.text)})` }] }) });
    const after = await expanded(server);
    expect(after.tools.map((tool) => tool.name)).toContain('translate');
  });
});

describe('mcp tool type: fallback, failures and refusals', () => {
  it('falls back to HTTP+SSE for a server that only speaks it', async () => {
    const legacy = await startTestMcpServer({ sseOnly: true });
    try {
      const { parsed, discovery, tools } = await expanded(legacy);
      expect(discovery.server?.transport).toBe('sse');
      const result = await mcpToolType.execute({ city: 'Porto' }, parsed, callContext(tools.find((tool) => tool.name === 'get_weather')!));
      expect(result.data).toContain('Weather in Porto');
    } finally {
      await mcpToolType.dispose!();
      await legacy.close();
    }
  });

  it('explains a server that is down', async () => {
    const gone = await startTestMcpServer();
    const url = gone.url;
    await gone.close();
    await expect(mcpToolType.discover!(config({ url }), discoverContext())).rejects.toThrow(/refused the connection/);
  });

  it('explains a server that answers garbage', async () => {
    const { startLoopbackServer } = await import('../fetch/test-server');
    const garbage = await startLoopbackServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"hello": "world"}'));
    try {
      await expect(mcpToolType.discover!(config({ url: `${garbage.origin}/mcp` }), discoverContext())).rejects.toThrow(/MCP server/);
    } finally {
      await garbage.close();
    }
  });

  it('refuses http://169.254.169.254/ without opening a socket', async () => {
    const sockets: unknown[] = [];
    const onSocket = (message: unknown) => sockets.push(message);
    subscribe('net.client.socket', onSocket);
    try {
      // The classifier refuses the cloud metadata address before any connection, for discovery and calls, even with FETCH_ALLOW_PRIVATE_NETWORKS.
      await expect(mcpToolType.discover!(config({ url: 'http://169.254.169.254/' }), discoverContext({ allowPrivateNetworks: false }))).rejects.toThrow(/Blocked destination: 169\.254\.169\.254, which is in cloud instance metadata/);
      await expect(mcpToolType.discover!(config({ url: 'http://169.254.169.254/' }), discoverContext({ allowPrivateNetworks: true }))).rejects.toThrow(/Blocked destination: 169\.254\.169\.254, which is in cloud instance metadata/);
      const call: ExpandedTool = { name: 'x', description: '', inputSchema: { type: 'object' }, effect: 'none', needsApproval: false };
      const result = await mcpToolType.execute({}, config({ url: 'http://169.254.169.254/mcp' }), callContext(call, { allowPrivateNetworks: false }));
      expect(result).toMatchObject({ success: false, error: expect.stringMatching(/Blocked destination/) });
      // A hostname that resolves there is refused too (stubbed DNS, no lookup on the network).
      const resolveHostname = async () => ['169.254.169.254'];
      await expect(mcpToolType.discover!(config({ url: 'http://metadata.test/mcp' }), discoverContext({ allowPrivateNetworks: false, services: { resolveHostname } }))).rejects.toThrow(/Blocked destination/);
      expect(sockets).toEqual([]);
      // The channel does see sockets: the loopback server (allowed in tests) opens one.
      await mcpToolType.discover!(config({ url: server.url }), discoverContext());
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      unsubscribe('net.client.socket', onSocket);
    }
  });

  it('refuses loopback without FETCH_ALLOW_PRIVATE_NETWORKS', async () => {
    await expect(mcpToolType.discover!(config({ url: server.url }), discoverContext({ allowPrivateNetworks: false }))).rejects.toThrow(/Blocked destination: 127\.0\.0\.1, which is in loopback/);
  });

  it('starts stdio servers only when the operator allows the command', async () => {
    const stdio = config({ transport: 'stdio', command: process.execPath, args: ['--import', 'tsx', fileURLToPath(new URL('./stdio-test-server.ts', import.meta.url))] });
    await expect(mcpToolType.discover!(stdio, discoverContext())).rejects.toThrow(/is not in MCP_STDIO_COMMANDS/);
    await expect(mcpToolType.discover!(stdio, discoverContext({ services: { mcpStdioCommands: ['uvx'] } }))).rejects.toThrow(/allowed: uvx/);

    const allowed = { services: { mcpStdioCommands: [process.execPath] }, secrets: { env: { TEST_TOKEN: 'stdio-secret' } } };
    const discovery = await mcpToolType.discover!(stdio, discoverContext({ ...allowed, signal: AbortSignal.timeout(30_000) }));
    expect(discovery.server).toMatchObject({ name: 'agentq-stdio-test', transport: 'stdio' });
    const whoami = mcpToolType.expand!(stdio, discovery)[0]!;
    const result = await mcpToolType.execute({ greeting: 'hello' }, stdio, callContext(whoami, allowed));
    expect(result.data).toContain('hello from stdio, token=stdio-secret');
  }, 60_000);
});

describe('expanding rows into model tools', () => {
  const discovery = {
    discoveredAt: new Date().toISOString(),
    tools: [
      { name: 'get.weather', description: 'a', inputSchema: { type: 'object' }, effect: 'none' as const },
      { name: 'get weather', description: 'b', inputSchema: {}, effect: 'none' as const },
      { name: 'x'.repeat(80), description: 'c', inputSchema: { type: 'object' }, effect: 'none' as const },
      { name: 'x'.repeat(81), description: 'd', inputSchema: { type: 'object' }, effect: 'none' as const },
    ],
  };
  const row = { slug: 'weather', type: 'mcp', config: { url: 'http://example.test/mcp' }, description: '', discovery };

  it('names tools <slug>__<name>, sanitised, at most 64 characters, collisions numbered deterministically', () => {
    const names = expandToolRows([row]).map((tool) => tool.name);
    expect(names).toEqual(['weather__get_weather', 'weather__get_weather_2', `weather__${'x'.repeat(55)}`, `weather__${'x'.repeat(53)}_2`]);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(expandToolRows([row]).map((tool) => tool.name)).toEqual(names);
    // A server schema without `type` still reaches the model as an object schema.
    expect(expandToolRows([row])[1]!.inputSchema).toMatchObject({ type: 'object', properties: {} });
  });

  it('keeps plain slugs and avoids them', () => {
    const plain = { slug: 'weather__get_weather', type: 'calculator', config: {}, description: '' };
    const names = expandToolRows([row, plain]).map((tool) => tool.name);
    expect(names).toContain('weather__get_weather');
    expect(names.filter((name) => name === 'weather__get_weather')).toHaveLength(1);
    expect(names).toContain('weather__get_weather_2');
  });
});
