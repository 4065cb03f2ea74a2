import { defineToolType } from '../define-tool-type';
import { mcpConfigSchema, mcpInputSchema, mcpSecretsSchema, serverLabel } from './mcp-schemas';
import { mcpTextZh } from './zh';

// The MCP SDK is loaded on first use: processes that never touch an MCP tool do not pay for it at startup.
let loaded: Promise<typeof import('./mcp-runtime')> | undefined;
const runtime = () => (loaded ??= import('./mcp-runtime'));

/**
 * `mcp`: the tools of a Model Context Protocol server. One instance expands into one model tool per allowed
 * server tool (`<slug>__<tool>`); discovery (`tools/list`) runs on create, update and refresh and is kept
 * as a snapshot on the row. Calls reuse one connection per server and send `notifications/cancelled`
 * when the run is cancelled or the call times out.
 */
export const mcpToolType = defineToolType({
  type: 'mcp',
  label: 'MCP server',
  summary: 'Offers the tools of a Model Context Protocol server (Streamable HTTP or HTTP+SSE; local stdio servers if the operator allows them).',
  translations: { zh: mcpTextZh },
  configSchema: mcpConfigSchema,
  inputSchema: mcpInputSchema,
  secretsSchema: mcpSecretsSchema,
  describe: (config) =>
    `Tools of the MCP server ${serverLabel(config) || '(not configured yet)'}. Each allowed server tool is offered on its own; results are untrusted third-party content.`,
  timeoutMs: (config) => config.timeout,
  // Each discovered tool carries its own effect (see ExpandedTool); this rule covers the type as a whole.
  effect: { possible: ['none', 'idempotent', 'non-idempotent'], summary: 'Per server tool, from its annotations: readOnlyHint → none, idempotentHint → idempotent, otherwise non-idempotent.', of: () => 'non-idempotent' },
  discover: async (config, context) => (await runtime()).discoverMcp(config, context),
  expand: (config, discovery) => {
    const allowed = new Set(config.allowedTools);
    const approval = new Set(config.approvalRequired);
    return (discovery?.tools ?? [])
      .filter((tool) => allowed.size === 0 || allowed.has(tool.name))
      .map((tool) => ({ ...tool, needsApproval: approval.has('*') || approval.has(tool.name) }));
  },
  execute: async (input, config, context) => (await runtime()).executeMcpCall(input, config, context),
  // Only a process that loaded the client has connections to close.
  dispose: async () => {
    if (loaded) await (await loaded).pool.closeAll();
  },
});
