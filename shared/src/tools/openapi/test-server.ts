import { stringify as toYaml } from 'yaml';
import { startLoopbackServer, type LoopbackServer } from '../fetch/test-server';

/** A petstore-style OpenAPI 3.1 document with a `$ref`'d schema, path, query and header parameters and JSON bodies. */
export function petstoreSpec(serverUrl: string | null) {
  return {
    openapi: '3.1.0',
    info: { title: 'Petstore', version: '1.0.0' },
    ...(serverUrl && { servers: [{ url: serverUrl }] }),
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List pets',
          parameters: [{ name: 'limit', in: 'query', description: 'How many to return', schema: { type: 'integer', maximum: 100 } }],
          responses: { '200': { description: 'ok' } },
        },
        post: {
          operationId: 'createPet',
          summary: 'Add a pet',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
          responses: { '201': { description: 'created' } },
        },
      },
      '/pets/{petId}': {
        parameters: [{ name: 'petId', in: 'path', required: true, description: 'The pet id', schema: { type: 'string' } }],
        get: { operationId: 'showPetById', summary: 'Info for a pet', responses: { '200': { description: 'ok' } } },
        put: {
          operationId: 'updatePet',
          summary: 'Update a pet',
          parameters: [{ name: 'X-Request-Tag', in: 'header', schema: { type: 'string' } }],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
          responses: { '200': { description: 'ok' } },
        },
        delete: { summary: 'Remove a pet', responses: { '204': { description: 'gone' } } },
      },
    },
    components: {
      schemas: {
        NewPet: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, tag: { type: 'string' } } },
      },
    },
  };
}

/** The same API as Swagger 2.0. */
export function petstoreSwagger2(host: string) {
  return {
    swagger: '2.0',
    info: { title: 'Petstore (Swagger 2)', version: '1.0.0' },
    host,
    basePath: '/',
    schemes: ['http'],
    paths: {
      '/pets/{petId}': {
        put: {
          operationId: 'updatePet',
          parameters: [
            { name: 'petId', in: 'path', required: true, type: 'string' },
            { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/NewPet' } },
          ],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
    definitions: { NewPet: { type: 'object', properties: { name: { type: 'string' } } } },
  };
}

export type PetstoreServer = LoopbackServer & { specUrl: string; yamlUrl: string; swaggerUrl: string };

/** A loopback server that serves the documents and implements the pets API in memory. Test-only helper. */
export async function startPetstoreServer(): Promise<PetstoreServer> {
  const pets = new Map<string, { id: string; name: string; tag?: string }>([['1', { id: '1', name: 'Rex', tag: 'dog' }]]);
  let origin = '';
  const server = await startLoopbackServer((request, response, body) => {
    const url = new URL(request.url ?? '/', origin);
    const json = (status: number, value: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (url.pathname === '/openapi.json') return json(200, petstoreSpec(origin));
    if (url.pathname === '/openapi.yaml') return void response.writeHead(200, { 'content-type': 'application/yaml' }).end(toYaml(petstoreSpec(origin)));
    if (url.pathname === '/swagger.json') return json(200, petstoreSwagger2(new URL(origin).host));
    if (url.pathname === '/pets' && request.method === 'GET') return json(200, [...pets.values()].slice(0, Number(url.searchParams.get('limit') ?? 100)));
    const match = /^\/pets\/([^/]+)$/.exec(url.pathname);
    if (match) {
      const id = decodeURIComponent(match[1]!);
      if (request.method === 'GET') return pets.has(id) ? json(200, pets.get(id)) : json(404, { message: 'no such pet' });
      if (request.method === 'PUT') {
        const pet = { id, ...(JSON.parse(body || '{}') as { name: string; tag?: string }) };
        pets.set(id, pet);
        return json(200, { updated: pet, tag: request.headers['x-request-tag'] ?? null });
      }
      if (request.method === 'DELETE') return void (pets.delete(id), response.writeHead(204).end());
    }
    if (url.pathname === '/pets' && request.method === 'POST') {
      const pet = { id: String(pets.size + 1), ...(JSON.parse(body || '{}') as { name: string }) };
      pets.set(pet.id, pet);
      return json(201, pet);
    }
    json(404, { message: 'not found' });
  });
  origin = server.origin;
  return { ...server, specUrl: `${origin}/openapi.json`, yamlUrl: `${origin}/openapi.yaml`, swaggerUrl: `${origin}/swagger.json` };
}
