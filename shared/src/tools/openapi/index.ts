import { defineToolType } from '../define-tool-type';
import type { ResolveHostname } from '../fetch/assert-safe-url';
import { callOperation } from './call-operation';
import { listOperations } from './list-operations';
import { openApiConfigSchema, openApiInputSchema, openApiSecretsSchema, type OperationCall } from './openapi-schemas';
import { openApiTextZh } from './zh';

function resolver(services: Record<string, unknown>): ResolveHostname | undefined {
  return typeof services.resolveHostname === 'function' ? (services.resolveHostname as ResolveHostname) : undefined;
}

/**
 * `openapi`: an HTTP API described by an OpenAPI 3.0/3.1 or Swagger 2.0 document. Each allowed operation
 * becomes a model tool `<slug>__<operationId>` whose input combines path, query and header parameters and
 * the JSON body; calls go through the fetch tool's hardened path (SSRF checks, redirects, size cap, fencing).
 */
export const openApiToolType = defineToolType({
  type: 'openapi',
  label: 'OpenAPI import',
  summary: 'Turns the operations of an OpenAPI (3.0, 3.1) or Swagger 2.0 description into tools.',
  translations: { zh: openApiTextZh },
  configSchema: openApiConfigSchema,
  inputSchema: openApiInputSchema,
  secretsSchema: openApiSecretsSchema,
  describe: (config) =>
    `Operations of the HTTP API described at ${config.specUrl || (config.spec ? 'a pasted OpenAPI document' : '(no document yet)')}. Responses over ${config.maxResponseSize} bytes are cut off; calls time out after ${config.timeout} ms. Results are untrusted third-party content.`,
  timeoutMs: (config) => config.timeout,
  // Each discovered tool carries its own effect (see ExpandedTool); this rule covers the type as a whole.
  effect: { possible: ['none', 'idempotent', 'non-idempotent'], summary: 'Per operation, from its method: GET/HEAD none, PUT/DELETE idempotent, POST/PATCH non-idempotent.', of: () => 'non-idempotent' },
  discover: async (config, context) => {
    // The parser (swagger-parser, yaml) loads on first use, so worker startup does not pay for it.
    const { loadSpec } = await import('./load-spec');
    return listOperations(await loadSpec(config, { allowPrivateNetworks: context.allowPrivateNetworks, resolve: resolver(context.services), signal: context.signal }));
  },
  expand: (config, discovery) => {
    const allowed = new Set(config.operations);
    const approval = new Set(config.approvalRequired);
    return (discovery?.tools ?? [])
      .filter((tool) => allowed.size === 0 || allowed.has(tool.name))
      .map((tool) => ({ ...tool, needsApproval: approval.has('*') || approval.has(tool.name) }));
  },
  execute: async (input, config, context) => {
    const started = performance.now();
    const call = context.call;
    if (!call?.call) return { success: false, error: 'No operation named for this call', metadata: { durationMs: 0 } };
    const secrets = openApiSecretsSchema.parse(context.secrets ?? {});
    const result = await callOperation(call.call as unknown as OperationCall, input, config, {
      signal: context.signal,
      allowPrivateNetworks: context.allowPrivateNetworks,
      resolve: resolver(context.services),
      token: secrets.token,
    });
    result.metadata = { ...result.metadata, durationMs: result.metadata.durationMs || Math.round(performance.now() - started), operation: call.name };
    return result;
  },
});
