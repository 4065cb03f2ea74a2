import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { fetch as undiciFetch, type Agent } from 'undici';
import { assertSafeUrl, findBlockedDestinationError, type ResolveHostname } from '../fetch/assert-safe-url';
import { errorCode } from '../fetch/error-code';
import { createSafeAgent } from '../fetch/safe-connect';
import type { McpConfig, McpSecrets } from './mcp-schemas';

export type McpConnectOptions = {
  allowPrivateNetworks: boolean;
  /** MCP_STDIO_COMMANDS: the only commands a stdio instance may start (empty = stdio off). */
  stdioCommands: readonly string[];
  /** DNS for the SSRF checks; the system resolver when absent (tests stub it). */
  resolve?: ResolveHostname;
  signal?: AbortSignal;
};

/** A live client session with one server; `closed` flips when the transport drops, so the pool reconnects. */
export type McpConnection = {
  client: Client;
  transport: 'streamable-http' | 'sse' | 'stdio';
  closed: boolean;
  close: () => Promise<void>;
};

const CLIENT_INFO = { name: 'agentq', version: '1.0.0' };
const CONNECT_TIMEOUT_MS = 15_000;

/** A stdio command the operator did not allow, or an MCP URL the SSRF rules refuse: the admin must fix the config. */
export class McpConnectError extends Error {
  override name = 'McpConnectError';
}

/**
 * Connects and runs `initialize`. HTTP servers are tried with Streamable HTTP first and, when the server
 * answers that endpoint with 400/404/405, with the older HTTP+SSE transport. Every request goes through
 * undici with the connect-time checked agent of the fetch tool, so the URL, its DNS answers and the
 * connected peer pass the same SSRF rules (FETCH_ALLOW_PRIVATE_NETWORKS is the escape hatch); redirects are refused.
 */
export async function connectMcp(config: McpConfig, secrets: McpSecrets, options: McpConnectOptions): Promise<McpConnection> {
  if (config.transport === 'stdio') return connectStdio(config, secrets, options);
  if (!config.url) throw new McpConnectError('No server URL configured');
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw new McpConnectError(`Not a valid URL: ${config.url}`);
  }
  try {
    await assertSafeUrl(url, { allowPrivateNetworks: options.allowPrivateNetworks, resolve: options.resolve, signal: options.signal });
  } catch (error) {
    throw describeConnectError(error);
  }
  const agent = createSafeAgent({ allowPrivateNetworks: options.allowPrivateNetworks, resolve: options.resolve, connectTimeout: CONNECT_TIMEOUT_MS });
  const safeFetch = ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), redirect: 'error', dispatcher: agent } as Parameters<typeof undiciFetch>[1])) as unknown as FetchLike;
  const requestInit = { headers: secrets.headers };
  try {
    return await start(new StreamableHTTPClientTransport(url, { requestInit, fetch: safeFetch }), 'streamable-http', agent, options.signal);
  } catch (error) {
    if (!(error instanceof StreamableHTTPError) || ![400, 404, 405].includes(error.code ?? 0)) {
      await agent.close().catch(() => {});
      throw describeConnectError(error);
    }
  }
  try {
    return await start(new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: safeFetch } as never, fetch: safeFetch }), 'sse', agent, options.signal);
  } catch (error) {
    await agent.close().catch(() => {});
    throw describeConnectError(error);
  }
}

async function connectStdio(config: McpConfig, secrets: McpSecrets, options: McpConnectOptions): Promise<McpConnection> {
  if (!config.command) throw new McpConnectError('No command configured for the stdio transport');
  if (!options.stdioCommands.includes(config.command)) {
    throw new McpConnectError(
      `Local (stdio) MCP servers are off unless the operator allows the command: '${config.command}' is not in MCP_STDIO_COMMANDS${options.stdioCommands.length ? ` (allowed: ${options.stdioCommands.join(', ')})` : ''}.`,
    );
  }
  const transport = new StdioClientTransport({ command: config.command, args: config.args, env: { ...getDefaultEnvironment(), ...secrets.env }, stderr: 'ignore' });
  return start(transport, 'stdio', undefined, options.signal);
}

async function start(transport: Transport, kind: McpConnection['transport'], agent: Agent | undefined, signal?: AbortSignal): Promise<McpConnection> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const connection: McpConnection = {
    client,
    transport: kind,
    closed: false,
    close: async () => {
      connection.closed = true;
      await client.close().catch(() => {});
      await agent?.close().catch(() => {});
    },
  };
  client.onclose = () => {
    connection.closed = true;
  };
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS, signal });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return connection;
}

/** A readable reason for the admin and the model: refused destinations and unreachable servers named as such. */
export function describeConnectError(error: unknown): Error {
  if (error instanceof McpConnectError) return error;
  const blocked = findBlockedDestinationError(error);
  if (blocked) return new McpConnectError(`Blocked destination: ${blocked.reason}. MCP servers must be public http(s) addresses unless FETCH_ALLOW_PRIVATE_NETWORKS is set.`);
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') return new McpConnectError('The MCP server refused the connection (is it running?)');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new McpConnectError(`Could not resolve the MCP server's host (${code})`);
  if (error instanceof StreamableHTTPError) return new McpConnectError(`The MCP server answered HTTP ${error.code ?? '?'}: ${error.message}`);
  const message = error instanceof Error ? error.message : String(error);
  return new McpConnectError(`Could not talk to the MCP server: ${message}${code ? ` (${code})` : ''}`);
}
