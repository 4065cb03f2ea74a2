import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../define-tool-type';
import { fenceToolContent } from '../fetch/fence-untrusted-content';

/** Bytes a base64 payload stands for, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/**
 * What the model reads from a tools/call result: text joined, structured content as JSON, images, audio and
 * resources summarised (type, size, URI) instead of dumped; fenced as untrusted. `isError` is a failed call.
 */
export function shapeMcpResult(result: CallToolResult, details: { server: string; tool: string; durationMs: number }): ToolResult {
  const parts: string[] = [];
  const content = Array.isArray(result.content) ? result.content : [];
  for (const item of content) {
    if (item.type === 'text') parts.push(item.text);
    else if (item.type === 'image' || item.type === 'audio') parts.push(`[${item.type}: ${item.mimeType}, ${base64Bytes(item.data)} bytes]`);
    else if (item.type === 'resource_link') parts.push(`[resource link: ${item.uri}${item.name ? ` (${item.name})` : ''}${item.mimeType ? `, ${item.mimeType}` : ''}]`);
    else if (item.type === 'resource') {
      const resource = item.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
      const size = resource.text !== undefined ? `${resource.text.length} characters` : `${base64Bytes(resource.blob ?? '')} bytes`;
      parts.push(`[resource: ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ''}, ${size}]`);
    }
  }
  const structured = result.structuredContent;
  const text = parts.join('\n');
  const metadata = { durationMs: details.durationMs, mcpTool: details.tool, contentItems: content.length, ...(structured !== undefined && { structured: true }) };
  if (result.isError) {
    return { success: false, error: `${details.tool} reported an error: ${text || JSON.stringify(structured ?? null)}`.slice(0, 4000), metadata };
  }
  const body = [text, structured !== undefined ? `structured content (JSON):\n${JSON.stringify(structured, null, 2)}` : ''].filter(Boolean).join('\n\n');
  return {
    success: true,
    data: fenceToolContent({ source: `the MCP tool ${details.tool}`, header: { server: details.server, tool: details.tool }, content: body || '(no content)' }),
    metadata,
  };
}
