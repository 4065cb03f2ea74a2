import type { ToolResult } from '../define-tool-type';
import type { ResolveHostname } from '../fetch/assert-safe-url';
import { fetchUrl } from '../fetch/fetch-url';
import type { FetchConfig } from '../fetch/fetch-schemas';
import { maskSecret } from '../mask-secret';
import type { OpenApiConfig, OperationCall } from './openapi-schemas';

export type CallOperationOptions = { signal: AbortSignal; allowPrivateNetworks: boolean; resolve?: ResolveHostname; token?: string };

/**
 * Builds the request of one operation from the model's arguments (path parameters substituted and encoded,
 * query and header parameters, the JSON body, auth) and sends it through the fetch tool's hardened path.
 * The token never reaches the model or the logs: it is masked in whatever comes back.
 */
export async function callOperation(operation: OperationCall, input: Record<string, unknown>, config: OpenApiConfig, options: CallOperationOptions): Promise<ToolResult> {
  const fail = (error: string): ToolResult => ({ success: false, error, metadata: { durationMs: 0 } });
  const base = config.baseUrl || operation.serverUrl;
  if (!base) return fail('The API has no base URL: set baseUrl on the tool (the document names no server)');
  let path = operation.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5' };
  for (const parameter of operation.parameters) {
    const value = input[parameter.name];
    if (value === undefined || value === null) {
      if (parameter.in === 'path') return fail(`Missing path parameter '${parameter.name}'`);
      continue;
    }
    const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
    if (parameter.in === 'path') path = path.split(`{${parameter.name}}`).join(encodeURIComponent(text));
    else if (parameter.in === 'query') {
      if (Array.isArray(value)) for (const item of value) query.append(parameter.name, String(item));
      else query.append(parameter.name, text);
    } else headers[parameter.name.toLowerCase()] = text;
  }
  const token = options.token;
  if (config.auth.type !== 'none' && !token) return fail('The tool has no API token set; an admin must add it');
  if (config.auth.type === 'bearer') headers.authorization = `Bearer ${token}`;
  if (config.auth.type === 'apiKey' && config.auth.in === 'header') headers[config.auth.name.toLowerCase()] = token!;
  if (config.auth.type === 'apiKey' && config.auth.in === 'query') query.set(config.auth.name, token!);

  let url: URL;
  try {
    url = new URL(base.replace(/\/+$/, '') + path);
  } catch {
    return fail(`Not a valid URL: ${base}${path}`);
  }
  for (const [name, value] of query) url.searchParams.append(name, value);
  let body: string | undefined;
  if (operation.body && input.body !== undefined) {
    body = JSON.stringify(input.body);
    headers['content-type'] = 'application/json';
  }
  const fetchConfig: FetchConfig = {
    defaultMethod: 'GET',
    defaultHeaders: {},
    timeout: config.timeout,
    maxResponseSize: config.maxResponseSize,
    allowedDomains: ['*'],
    blockedDomains: [],
    parseMode: 'json',
  };
  const result = await fetchUrl({ url: url.href, method: operation.method as never, headers, body }, fetchConfig, {
    signal: options.signal,
    allowPrivateNetworks: options.allowPrivateNetworks,
    resolve: options.resolve,
  });
  // The secret (e.g. an API key sent in the query string) never comes back in the result.
  return maskSecret(result, token);
}
