import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { DiscoveredTool, ToolDiscovery, ToolEffect } from '../define-tool-type';
import type { McpConnection } from './connect-mcp';

/** Pages of tools/list we follow before calling the server broken (at 100 tools a page: 10 000 tools). */
const MAX_PAGES = 100;

/**
 * The server's tool annotations as an effect class: read-only calls change nothing, idempotent ones may be
 * repeated; anything else, and no annotation at all, is treated as non-idempotent (MCP's own default).
 */
export function mcpToolEffect(annotations: Tool['annotations']): ToolEffect {
  if (annotations?.readOnlyHint === true) return 'none';
  if (annotations?.idempotentHint === true) return 'idempotent';
  return 'non-idempotent';
}

/** `tools/list`, every page, as the snapshot stored on the instance. */
export async function discoverMcpTools(connection: McpConnection, signal?: AbortSignal): Promise<ToolDiscovery> {
  const tools: DiscoveredTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await connection.client.listTools(cursor ? { cursor } : undefined, { signal, timeout: 15_000 });
    for (const tool of result.tools) {
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      tools.push({
        name: tool.name,
        ...(tool.title ?? tool.annotations?.title ? { title: tool.title ?? tool.annotations?.title } : {}),
        description: tool.description ?? '',
        inputSchema: tool.inputSchema as Record<string, unknown>,
        ...(tool.annotations && { annotations: tool.annotations as Record<string, unknown> }),
        effect: mcpToolEffect(tool.annotations),
      });
    }
    cursor = result.nextCursor;
    if (!cursor) break;
    if (page === MAX_PAGES - 1) throw new Error(`tools/list still had more pages after ${MAX_PAGES}`);
  }
  const server = connection.client.getServerVersion();
  return { tools, discoveredAt: new Date().toISOString(), server: { name: server?.name, version: server?.version, transport: connection.transport } };
}
