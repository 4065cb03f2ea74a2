import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { DiscoverContext, ToolContext, ToolDiscovery, ToolResult } from '../define-tool-type';
import type { ResolveHostname } from '../fetch/assert-safe-url';
import { shapeMcpResult } from './call-mcp-tool';
import { connectMcp, describeConnectError, type McpConnection, type McpConnectOptions } from './connect-mcp';
import { McpConnectionPool } from './connection-pool';
import { discoverMcpTools } from './discover-mcp-tools';
import { mcpSecretsSchema, serverLabel, type McpConfig } from './mcp-schemas';

/** Connections this process keeps open, one per server (see connection-pool.ts). */
export const pool = new McpConnectionPool();

function connectOptions(context: { allowPrivateNetworks: boolean; services: Record<string, unknown> }): McpConnectOptions {
  const { mcpStdioCommands, resolveHostname } = context.services;
  return {
    allowPrivateNetworks: context.allowPrivateNetworks,
    stdioCommands: Array.isArray(mcpStdioCommands) ? (mcpStdioCommands as string[]) : [],
    resolve: typeof resolveHostname === 'function' ? (resolveHostname as ResolveHostname) : undefined,
  };
}

/** initialize + tools/list on a connection of its own, closed afterwards. */
export async function discoverMcp(config: McpConfig, context: DiscoverContext): Promise<ToolDiscovery> {
  const connection = await connectMcp(config, mcpSecretsSchema.parse(context.secrets), { ...connectOptions(context), signal: context.signal });
  try {
    return await discoverMcpTools(connection, context.signal);
  } catch (error) {
    throw describeConnectError(error);
  } finally {
    await connection.close();
  }
}

/** One tools/call on the pooled connection; a broken connection is dropped and, when harmless, the call retried once. */
export async function executeMcpCall(input: Record<string, unknown>, config: McpConfig, context: ToolContext): Promise<ToolResult> {
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
    let dropped = false;
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
      dropped = true;
      await pool.drop(connection);
      const sessionGone = /\b404\b|session/i.test(error instanceof Error ? error.message : '');
      if (attempt === 1 && (call.effect !== 'non-idempotent' || sessionGone)) continue;
      return { success: false, error: describeConnectError(error).message, metadata: { durationMs: elapsed(), mcpTool: call.name } };
    } finally {
      if (!dropped) await pool.release(connection);
    }
  }
}
