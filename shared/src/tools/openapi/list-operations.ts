import type { DiscoveredTool, ToolDiscovery, ToolEffect } from '../define-tool-type';
import type { LoadedSpec } from './load-spec';
import type { OperationCall } from './openapi-schemas';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** GET/HEAD/OPTIONS read; PUT and DELETE may be repeated; POST and PATCH may not. */
export function operationEffect(method: string): ToolEffect {
  const upper = method.toUpperCase();
  if (upper === 'GET' || upper === 'HEAD' || upper === 'OPTIONS') return 'none';
  if (upper === 'PUT' || upper === 'DELETE') return 'idempotent';
  return 'non-idempotent';
}

/** `get /pets/{petId}` → `get_pets_petId`: the id an operation without operationId gets. */
export function generatedOperationId(method: string, path: string): string {
  const cleaned = path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return `${method.toLowerCase()}_${cleaned || 'root'}`;
}

type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Record<string, unknown>; type?: string; items?: unknown; enum?: unknown[]; format?: string };

/** The first server of the document as an absolute URL (OpenAPI 3 `servers`, Swagger 2 `schemes`/`host`/`basePath`). */
export function documentServerUrl(spec: LoadedSpec): string | null {
  const { document, sourceUrl } = spec;
  if (typeof document.swagger === 'string') {
    const host = document.host as string | undefined;
    const basePath = (document.basePath as string | undefined) ?? '';
    if (host) return `${(document.schemes as string[] | undefined)?.[0] ?? 'https'}://${host}${basePath}`;
    return sourceUrl ? new URL(basePath || '/', sourceUrl).href : null;
  }
  const server = (document.servers as { url: string; variables?: Record<string, { default: string }> }[] | undefined)?.[0];
  if (!server) return sourceUrl ? new URL('/', sourceUrl).href : null;
  const url = server.url.replace(/\{(\w+)\}/g, (_match, name: string) => server.variables?.[name]?.default ?? '');
  try {
    return new URL(url, sourceUrl ?? undefined).href;
  } catch {
    return null;
  }
}

/** Swagger 2 parameters carry their schema inline; OpenAPI 3 under `schema`. */
function parameterSchema(parameter: Parameter): Record<string, unknown> {
  const schema = parameter.schema ?? Object.fromEntries(Object.entries({ type: parameter.type, items: parameter.items, enum: parameter.enum, format: parameter.format }).filter(([, value]) => value !== undefined));
  return { ...schema, ...(parameter.description && { description: parameter.description }) };
}

/** JSON request body schema (OpenAPI 3 `requestBody`, Swagger 2 `in: body`), if the operation takes one. */
function jsonBody(operation: Record<string, any>, parameters: Parameter[]): { schema: Record<string, unknown>; required: boolean; description?: string } | null {
  const swaggerBody = parameters.find((parameter) => parameter.in === 'body');
  if (swaggerBody) return { schema: swaggerBody.schema ?? {}, required: swaggerBody.required ?? false, description: swaggerBody.description };
  const content = operation.requestBody?.content as Record<string, { schema?: Record<string, unknown> }> | undefined;
  if (!content) return null;
  const mediaType = Object.keys(content).find((type) => type === 'application/json' || /\+json$/.test(type) || type === '*/*');
  if (!mediaType) return null;
  return { schema: content[mediaType]?.schema ?? {}, required: operation.requestBody.required ?? false, description: operation.requestBody.description };
}

/** Every operation of the document as a discovered tool: parameters and JSON body in one input schema. */
export function listOperations(spec: LoadedSpec): ToolDiscovery {
  const serverUrl = documentServerUrl(spec);
  const tools: DiscoveredTool[] = [];
  const seen = new Set<string>();
  const paths = (spec.document.paths ?? {}) as Record<string, Record<string, any>>;
  for (const [path, item] of Object.entries(paths)) {
    if (!item || typeof item !== 'object') continue;
    for (const method of METHODS) {
      const operation = item[method] as Record<string, any> | undefined;
      if (!operation) continue;
      let name = typeof operation.operationId === 'string' && operation.operationId ? operation.operationId : generatedOperationId(method, path);
      for (let counter = 2; seen.has(name); counter += 1) name = `${name}_${counter}`;
      seen.add(name);
      // Operation parameters override path-level ones with the same name and location.
      const merged = new Map<string, Parameter>();
      for (const parameter of [...((item.parameters as Parameter[]) ?? []), ...((operation.parameters as Parameter[]) ?? [])]) merged.set(`${parameter.in}:${parameter.name}`, parameter);
      const parameters = [...merged.values()];
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      const callParameters: OperationCall['parameters'] = [];
      for (const parameter of parameters) {
        if (parameter.in !== 'path' && parameter.in !== 'query' && parameter.in !== 'header') continue;
        if (properties[parameter.name] !== undefined) continue;
        properties[parameter.name] = parameterSchema(parameter);
        callParameters.push({ name: parameter.name, in: parameter.in });
        if (parameter.required || parameter.in === 'path') required.push(parameter.name);
      }
      const body = jsonBody(operation, parameters);
      if (body) {
        properties.body = { ...body.schema, ...(body.description && { description: body.description }) };
        if (body.required) required.push('body');
      }
      const call: OperationCall = { method: method.toUpperCase(), path, serverUrl, parameters: callParameters, body: body !== null };
      const summary = typeof operation.summary === 'string' ? operation.summary : '';
      const description = [summary, typeof operation.description === 'string' && operation.description !== summary ? operation.description : '', `${call.method} ${path}`].filter(Boolean).join('\n');
      tools.push({
        name,
        ...(summary && { title: summary }),
        description,
        inputSchema: { type: 'object', properties, ...(required.length && { required }), additionalProperties: false },
        effect: operationEffect(method),
        call: call as unknown as Record<string, unknown>,
        ...(operation.deprecated === true && { annotations: { deprecated: true } }),
      });
    }
  }
  const info = (spec.document.info ?? {}) as { title?: string; version?: string };
  return { tools, discoveredAt: new Date().toISOString(), server: { name: info.title, version: info.version, url: serverUrl ?? undefined } };
}
