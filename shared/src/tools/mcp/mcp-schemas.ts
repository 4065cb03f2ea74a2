import { z } from 'zod';

export const MCP_MAX_TIMEOUT_MS = 10 * 60_000;

/** Per-instance settings of an MCP server; `parse({})` gives the defaults (no server yet). */
export const mcpConfigSchema = z.object({
  transport: z
    .enum(['http', 'stdio'])
    .default('http')
    .describe('"http": a remote server (Streamable HTTP, falling back to the older HTTP+SSE). "stdio": a local command, only if the operator allows it in MCP_STDIO_COMMANDS.'),
  url: z.string().max(2000).default('').describe('The server endpoint, e.g. https://mcp.example.com/mcp (http transport).'),
  command: z.string().max(500).default('').describe('stdio transport: the executable to start; must be listed in MCP_STDIO_COMMANDS.'),
  args: z.array(z.string().max(2000)).max(50).default([]).describe('stdio transport: command-line arguments.'),
  allowedTools: z.array(z.string().max(200)).max(500).default([]).describe("The server's tools offered to the model; empty offers all of them."),
  approvalRequired: z
    .array(z.string().max(200))
    .max(500)
    .default([])
    .describe('Tools whose calls wait for a human approval ("*" for all of them).'),
  timeout: z.number().int().min(1000).max(MCP_MAX_TIMEOUT_MS).default(60_000).describe('Milliseconds one tool call may take before it is cancelled.'),
});

export type McpConfig = z.output<typeof mcpConfigSchema>;

/** Write-only: request headers for auth (e.g. `Authorization: Bearer …`), stored encrypted. */
export const mcpSecretsSchema = z.object({
  headers: z
    .record(z.string().min(1).max(200).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'Not a valid HTTP header name'), z.string().max(8000))
    .default({})
    .describe('Headers sent with every request to the server, e.g. {"Authorization": "Bearer …"}.'),
  env: z.record(z.string().min(1).max(200), z.string().max(8000)).default({}).describe('stdio transport: environment variables for the command.'),
});

export type McpSecrets = z.output<typeof mcpSecretsSchema>;

/** Arguments are whatever the server's own input schema says; the server validates them. */
export const mcpInputSchema = z.record(z.string(), z.unknown());

/** How the admin and the model see which server an instance talks to. */
export function serverLabel(config: McpConfig): string {
  return config.transport === 'stdio' ? `stdio:${config.command}` : config.url;
}
