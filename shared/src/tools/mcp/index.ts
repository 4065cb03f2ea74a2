import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { defineToolType, type ToolResult } from '../define-tool-type';
import type { ResolveHostname } from '../fetch/assert-safe-url';
import { shapeMcpResult } from './call-mcp-tool';
import { connectMcp, describeConnectError, type McpConnection, type McpConnectOptions } from './connect-mcp';
import { McpConnectionPool } from './connection-pool';
import { discoverMcpTools } from './discover-mcp-tools';
import { mcpConfigSchema, mcpInputSchema, mcpSecretsSchema, type McpConfig } from './mcp-schemas';

/** Connections this process keeps open, one per server (see connection-pool.ts). */
const pool = new McpConnectionPool();

function connectOptions(context: { allowPrivateNetworks: boolean; services: Record<string, unknown> }): McpConnectOptions {
  const { mcpStdioCommands, resolveHostname } = context.services;
  return {
    allowPrivateNetworks: context.allowPrivateNetworks,
    stdioCommands: Array.isArray(mcpStdioCommands) ? (mcpStdioCommands as string[]) : [],
    resolve: typeof resolveHostname === 'function' ? (resolveHostname as ResolveHostname) : undefined,
  };
}

function serverLabel(config: McpConfig): string {
  return config.transport === 'stdio' ? `stdio:${config.command}` : config.url;
}

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
  configSchema: mcpConfigSchema,
  inputSchema: mcpInputSchema,
  secretsSchema: mcpSecretsSchema,
  describe: (config) =>
    `Tools of the MCP server ${serverLabel(config) || '(not configured yet)'}. Each allowed server tool is offered on its own; results are untrusted third-party content.`,
  timeoutMs: (config) => config.timeout,
  effect: 'non-idempotent',
  discover: async (config, context) => {
    const connection = await connectMcp(config, mcpSecretsSchema.parse(context.secrets), { ...connectOptions(context), signal: context.signal });
    try {
      return await discoverMcpTools(connection, context.signal);
    } catch (error) {
      throw describeConnectError(error);
    } finally {
      await connection.close();
    }
  },
  expand: (config, discovery) => {
    const allowed = new Set(config.allowedTools);
    const approval = new Set(config.approvalRequired);
    return (discovery?.tools ?? [])
      .filter((tool) => allowed.size === 0 || allowed.has(tool.name))
      .map((tool) => ({ ...tool, needsApproval: approval.has('*') || approval.has(tool.name) }));
  },
  execute: async (input, config, context): Promise<ToolResult> => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const call = context.call;
    if (!call) return { success: false, error: 'No MCP tool named for this call', metadata: { durationMs: 0 } };
    const secrets = mcpSecretsSchema.parse(context.secrets ?? {});
    const options = connectOptions(context);
    const server = serverLabel(config);
    const callOnce = async (connection: McpConnection) =>
      connection.client.callTool({ name: call.name, arguments: input }, undefined, { signal: context.signal, timeout: config.timeout });

    for (let attempt = 1; ; attempt += 1) {
      let connection: McpConnection;
      try {
        connection = await pool.get(config, secrets, options);
      } catch (error) {
        return { success: false, error: describeConnectError(error).message, metadata: { durationMs: elapsed(), mcpTool: call.name } };
      }
      try {
        const result = await callOnce(connection);
        return shapeMcpResult(result as never, { server, tool: call.name, durationMs: elapsed() });
      } catch (error) {
        if (context.signal.aborted) return { success: false, error: 'Cancelled; the MCP server was told to stop', metadata: { durationMs: elapsed(), cancelled: true, mcpTool: call.name } };
        if (error instanceof McpError) {
          if (error.code === ErrorCode.RequestTimeout) {
            return { success: false, error: `The MCP tool ${call.name} did not answer within ${config.timeout} ms (cancelled)`, metadata: { durationMs: elapsed(), timedOut: true, mcpTool: call.name } };
          }
          if (error.code !== ErrorCode.ConnectionClosed) {
            return { success: false, error: `The MCP server refused the call: ${error.message}`, metadata: { durationMs: elapsed(), mcpTool: call.name, mcpErrorCode: error.code } };
          }
        }
        // The connection broke: forget it so the next call reconnects. Repeat this call only when doing so is harmless.
        await pool.drop(connection);
        const sessionGone = /\b404\b|session/i.test(error instanceof Error ? error.message : '');
        if (attempt === 1 && (call.effect !== 'non-idempotent' || sessionGone)) continue;
        return { success: false, error: describeConnectError(error).message, metadata: { durationMs: elapsed(), mcpTool: call.name } };
      }
    }
  },
  dispose: () => pool.closeAll(),
});
