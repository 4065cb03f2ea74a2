/** A stdio MCP server for tests: `node --import tsx stdio-test-server.ts`. Test-only. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'agentq-stdio-test', version: '1.0.0' });
server.registerTool('whoami', { description: 'Says which environment it runs with.', inputSchema: { greeting: z.string() } }, async (args) => ({
  content: [{ type: 'text', text: `${args.greeting} from stdio, token=${process.env.TEST_TOKEN ?? 'none'}` }],
}));
await server.connect(new StdioServerTransport());
