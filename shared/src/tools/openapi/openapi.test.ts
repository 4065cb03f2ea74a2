import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscoverContext, ExpandedTool, ToolContext, ToolDiscovery } from '../define-tool-type';
import { startLoopbackServer } from '../fetch/test-server';
import { openApiToolType } from './index';
import { petstoreSpec, startPetstoreServer, type PetstoreServer } from './test-server';

const config = (overrides: Record<string, unknown> = {}) => openApiToolType.configSchema.parse(overrides);
const discoverContext = (overrides: Partial<DiscoverContext> = {}): DiscoverContext => ({ signal: AbortSignal.timeout(10_000), allowPrivateNetworks: true, secrets: {}, services: {}, ...overrides });
const callContext = (call: ExpandedTool, overrides: Partial<ToolContext> = {}): ToolContext => ({ userId: null, runId: null, sessionId: null, toolCallId: null, signal: AbortSignal.timeout(10_000), allowPrivateNetworks: true, services: {}, secrets: {}, call, ...overrides });

let petstore: PetstoreServer;

beforeAll(async () => {
  petstore = await startPetstoreServer();
});
afterAll(async () => {
  await petstore.close();
});

function byName(discovery: ToolDiscovery) {
  return Object.fromEntries(discovery.tools.map((tool) => [tool.name, tool]));
}

describe('openapi tool type', () => {
  it('imports a spec from a URL: one tool per operation, parameters and $ref bodies in the input schema, effects by method', async () => {
    const discovery = await openApiToolType.discover!(config({ specUrl: petstore.specUrl }), discoverContext());
    expect(discovery.server).toMatchObject({ name: 'Petstore', version: '1.0.0', url: `${petstore.origin}/` });
    const tools = byName(discovery);
    expect(Object.keys(tools)).toEqual(['listPets', 'createPet', 'showPetById', 'updatePet', 'delete_pets_petId']);
    expect(tools.updatePet).toMatchObject({
      title: 'Update a pet',
      effect: 'idempotent',
      inputSchema: {
        type: 'object',
        required: ['petId', 'body'],
        properties: {
          petId: { type: 'string', description: 'The pet id' },
          'X-Request-Tag': { type: 'string' },
          body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        },
      },
    });
    expect(tools.listPets).toMatchObject({ effect: 'none', inputSchema: { properties: { limit: { type: 'integer', description: 'How many to return' } } } });
    expect(tools.createPet!.effect).toBe('non-idempotent');
    expect(tools.delete_pets_petId!.effect).toBe('idempotent');
  });

  it('imports pasted YAML, OpenAPI 3.0 and Swagger 2.0', async () => {
    const pasted = await openApiToolType.discover!(config({ spec: toYaml(petstoreSpec(petstore.origin)) }), discoverContext());
    expect(pasted.tools).toHaveLength(5);
    const openApi30 = await openApiToolType.discover!(config({ spec: JSON.stringify({ ...petstoreSpec(petstore.origin), openapi: '3.0.3' }) }), discoverContext());
    expect(Object.keys(byName(openApi30))).toEqual(['listPets', 'createPet', 'showPetById', 'updatePet', 'delete_pets_petId']);
    expect(byName(openApi30).createPet).toMatchObject({ effect: 'non-idempotent', inputSchema: { required: ['body'], properties: { body: { required: ['name'] } } } });
    const swagger = await openApiToolType.discover!(config({ specUrl: petstore.swaggerUrl }), discoverContext());
    expect(byName(swagger).updatePet).toMatchObject({ inputSchema: { required: ['petId', 'body'], properties: { body: { properties: { name: { type: 'string' } } } } } });
  });

  it('calls an operation with path, header and body parameters through the hardened fetch path', async () => {
    const parsed = config({ specUrl: petstore.specUrl, operations: ['updatePet', 'showPetById'], approvalRequired: ['updatePet'] });
    const discovery = await openApiToolType.discover!(parsed, discoverContext());
    const tools = openApiToolType.expand!(parsed, discovery);
    expect(tools.map((tool) => [tool.name, tool.needsApproval])).toEqual([
      ['showPetById', false],
      ['updatePet', true],
    ]);
    const result = await openApiToolType.execute({ petId: 'a b/7', 'X-Request-Tag': 'e2e', body: { name: 'Fido', tag: 'dog' } }, parsed, callContext(tools[1]!));
    expect(result.success).toBe(true);
    expect(result.metadata).toMatchObject({ statusCode: 200, operation: 'updatePet' });
    expect(result.data).toContain('{"updated":{"id":"a b/7","name":"Fido","tag":"dog"},"tag":"e2e"}');
    expect(result.data).toMatch(/<untrusted-content id="[0-9a-f]+">/);
    const request = petstore.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'PUT', url: '/pets/a%20b%2F7' });
    expect(JSON.parse(request.body)).toEqual({ name: 'Fido', tag: 'dog' });
    expect(request.headers['content-type']).toBe('application/json');

    const missing = await openApiToolType.execute({ body: {} }, parsed, callContext(tools[1]!));
    expect(missing).toMatchObject({ success: false, error: "Missing path parameter 'petId'" });
    const notFound = await openApiToolType.execute({ petId: 'nope' }, parsed, callContext(tools[0]!));
    expect(notFound).toMatchObject({ success: false, error: expect.stringContaining('HTTP 404') });
  });

  it('sends the secret token as configured and never shows it back', async () => {
    const discovery = await openApiToolType.discover!(config({ specUrl: petstore.specUrl }), discoverContext());
    const list = discovery.tools.find((tool) => tool.name === 'listPets')!;
    const call = { ...list, needsApproval: false };
    const inQuery = config({ specUrl: petstore.specUrl, auth: { type: 'apiKey', in: 'query', name: 'api_key' } });
    const result = await openApiToolType.execute({ limit: 1 }, inQuery, callContext(call, { secrets: { token: 'pet-secret-key' } }));
    expect(petstore.requests.at(-1)!.url).toBe('/pets?limit=1&api_key=pet-secret-key');
    expect(JSON.stringify(result)).not.toContain('pet-secret-key');
    const inHeader = config({ specUrl: petstore.specUrl, auth: { type: 'apiKey', in: 'header', name: 'X-Pet-Key' } });
    const headerResult = await openApiToolType.execute({}, inHeader, callContext(call, { secrets: { token: 'pet-header-key' } }));
    expect(petstore.requests.at(-1)!.headers['x-pet-key']).toBe('pet-header-key');
    expect(JSON.stringify(headerResult)).not.toContain('pet-header-key');
    const bearer = config({ specUrl: petstore.specUrl, auth: { type: 'bearer' } });
    await openApiToolType.execute({}, bearer, callContext(call, { secrets: { token: 'bearer-token' } }));
    expect(petstore.requests.at(-1)!.headers.authorization).toBe('Bearer bearer-token');
    const noToken = await openApiToolType.execute({}, bearer, callContext(call));
    expect(noToken).toMatchObject({ success: false, error: expect.stringContaining('no API token') });
  });

  it('uses the base URL override', async () => {
    const parsed = config({ spec: JSON.stringify(petstoreSpec(null)), baseUrl: petstore.origin });
    const discovery = await openApiToolType.discover!(parsed, discoverContext());
    const show = { ...discovery.tools.find((tool) => tool.name === 'showPetById')!, needsApproval: false };
    const result = await openApiToolType.execute({ petId: '1' }, parsed, callContext(show));
    expect(result.data).toContain('"name":"Rex"');
    const noBase = await openApiToolType.execute({ petId: '1' }, config({ spec: JSON.stringify(petstoreSpec(null)) }), callContext(show));
    expect(noBase).toMatchObject({ success: false, error: expect.stringContaining('no base URL') });
  });

  it('cuts responses at maxResponseSize and stops a call at the timeout', async () => {
    const api = await startLoopbackServer((request, response) => {
      if (request.url === '/big') return void response.writeHead(200, { 'content-type': 'text/plain' }).end('y'.repeat(5000));
      // /slow never answers; the call must give up on its own.
    });
    try {
      const spec = {
        openapi: '3.0.3',
        info: { title: 'Limits', version: '1' },
        servers: [{ url: api.origin }],
        paths: { '/big': { get: { operationId: 'big', responses: { '200': { description: 'ok' } } } }, '/slow': { get: { operationId: 'slow', responses: { '200': { description: 'ok' } } } } },
      };
      const parsed = config({ spec: JSON.stringify(spec), maxResponseSize: 1000, timeout: 300 });
      const tools = openApiToolType.expand!(parsed, await openApiToolType.discover!(parsed, discoverContext()));
      const big = await openApiToolType.execute({}, parsed, callContext(tools.find((tool) => tool.name === 'big')!));
      expect(big).toMatchObject({ success: true, metadata: { truncated: true, responseSize: 1000 } });
      expect(big.data).not.toContain('y'.repeat(1001));
      const started = performance.now();
      const slow = await openApiToolType.execute({}, parsed, callContext(tools.find((tool) => tool.name === 'slow')!));
      expect(slow).toMatchObject({ success: false, error: 'The fetch timed out after 300 ms.', metadata: { timedOut: true } });
      expect(performance.now() - started).toBeLessThan(5000);
    } finally {
      await api.close();
    }
  });

  it('explains garbage and unreachable documents', async () => {
    await expect(openApiToolType.discover!(config({ spec: '{"hello": 1}' }), discoverContext())).rejects.toThrow(/Not an OpenAPI document/);
    await expect(openApiToolType.discover!(config({ spec: 'openapi: [unclosed' }), discoverContext())).rejects.toThrow(/neither JSON nor YAML/);
    await expect(openApiToolType.discover!(config({ specUrl: `${petstore.origin}/missing.json` }), discoverContext())).rejects.toThrow(/HTTP 404/);
    await expect(openApiToolType.discover!(config({}), discoverContext())).rejects.toThrow(/No OpenAPI document/);
  });

  it('refuses a spec URL and a base URL on 169.254.169.254 without opening a socket', async () => {
    const sockets: unknown[] = [];
    const onSocket = (message: unknown) => sockets.push(message);
    subscribe('net.client.socket', onSocket);
    try {
      await expect(openApiToolType.discover!(config({ specUrl: 'http://169.254.169.254/openapi.json' }), discoverContext({ allowPrivateNetworks: false }))).rejects.toThrow(/Blocked destination: 169\.254\.169\.254/);
      const parsed = config({ spec: JSON.stringify(petstoreSpec('http://169.254.169.254/')) });
      const discovery = await openApiToolType.discover!(parsed, discoverContext({ allowPrivateNetworks: false }));
      const show = { ...discovery.tools.find((tool) => tool.name === 'showPetById')!, needsApproval: false };
      const result = await openApiToolType.execute({ petId: '1' }, parsed, callContext(show, { allowPrivateNetworks: false }));
      expect(result).toMatchObject({ success: false, error: expect.stringContaining('Blocked destination') });
    } finally {
      unsubscribe('net.client.socket', onSocket);
    }
    expect(sockets).toEqual([]);
  });
});
