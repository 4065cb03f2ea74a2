import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema, type CallToolResult, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export type TestMcpTool = {
  name: string;
  description: string;
  inputSchema: z.ZodRawShape;
  annotations?: ToolAnnotations;
  handler: (args: Record<string, unknown>, extra: { signal: AbortSignal }) => Promise<CallToolResult> | CallToolResult;
};

/** A real MCP server (the SDK's McpServer) on 127.0.0.1, for tests. */
export type TestMcpServer = {
  /** `http://127.0.0.1:<port>/mcp` (or `/sse` for an SSE-only server). */
  url: string;
  /** Every tools/call in arrival order. */
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  /** Calls whose handler was aborted (by a cancellation, or by the session closing). */
  cancelled: string[];
  /** `notifications/cancelled` messages as they arrived on the wire, with the id of the request they cancel. */
  cancelNotifications: Array<{ requestId: unknown; reason?: string }>;
  /** With `pageSize`: the cursor of every tools/list request (undefined for the first page). */
  listCursors: Array<string | undefined>;
  /** HTTP requests seen, with their headers (to check auth headers). */
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }>;
  /** Sessions initialised so far: one per client connection. */
  sessions: () => number;
  /** Registers a tool on the running server (clients see it on their next tools/list). */
  addTool: (tool: TestMcpTool) => void;
  /** Drops every session and open socket, as a restarted server would. */
  dropSessions: () => Promise<void>;
  close: () => Promise<void>;
};

/** Tools every test server starts with: an echo, a read-only weather lookup, a failing tool and a slow one. */
export function defaultTestTools(calls: TestMcpServer['cancelled']): TestMcpTool[] {
  return [
    {
      name: 'get_weather',
      description: 'Current weather for a city.',
      inputSchema: { city: z.string().describe('City name') },
      annotations: { readOnlyHint: true, title: 'Weather' },
      handler: (args) => ({
        content: [{ type: 'text', text: `Weather in ${String(args.city)}: 21°C and sunny` }],
        structuredContent: { city: args.city, celsius: 21 },
      }),
    },
    {
      name: 'create_ticket',
      description: 'Opens a support ticket.',
      inputSchema: { title: z.string() },
      annotations: { destructiveHint: false, idempotentHint: false },
      handler: (args) => ({ content: [{ type: 'text', text: `Ticket T-42 created: ${String(args.title)}` }] }),
    },
    {
      name: 'broken',
      description: 'Always fails.',
      inputSchema: {},
      handler: () => ({ isError: true, content: [{ type: 'text', text: 'database unavailable' }] }),
    },
    {
      name: 'snapshot',
      description: 'Returns an image and a resource.',
      inputSchema: {},
      annotations: { readOnlyHint: true, idempotentHint: true },
      handler: () => ({
        content: [
          { type: 'image', data: Buffer.alloc(300, 1).toString('base64'), mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///report.txt', mimeType: 'text/plain', text: 'x'.repeat(5000) } },
        ],
      }),
    },
    {
      name: 'slow',
      description: 'Waits until cancelled (or 30 s).',
      inputSchema: {},
      annotations: { idempotentHint: true },
      handler: (_args, extra) =>
        new Promise<CallToolResult>((resolve) => {
          const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: 'slow done' }] }), 30_000);
          extra.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            calls.push('slow');
            resolve({ content: [{ type: 'text', text: 'aborted' }] });
          });
        }),
    },
  ];
}

/**
 * Starts a stateful Streamable HTTP MCP server (one McpServer per session), or with `sseOnly` a server that
 * speaks only the older HTTP+SSE transport, so clients must fall back. With `pageSize`, tools/list answers
 * that many tools a page with a `nextCursor` (McpServer itself always answers one page). Test-only helper.
 */
export async function startTestMcpServer(options: { sseOnly?: boolean; tools?: TestMcpTool[]; pageSize?: number } = {}): Promise<TestMcpServer> {
  const calls: TestMcpServer['calls'] = [];
  const cancelled: string[] = [];
  const cancelNotifications: TestMcpServer['cancelNotifications'] = [];
  const listCursors: TestMcpServer['listCursors'] = [];
  const requests: TestMcpServer['requests'] = [];
  const tools = options.tools ?? defaultTestTools(cancelled);
  const servers = new Set<McpServer>();
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const sockets = new Set<Socket>();
  let sessionCount = 0;

  function register(server: McpServer, tool: TestMcpTool) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations }, async (args: Record<string, unknown>, extra: { signal: AbortSignal }) => {
      calls.push({ name: tool.name, args });
      return tool.handler(args, extra);
    });
  }

  function newServer() {
    const server = new McpServer({ name: 'agentq-test-mcp', version: '1.0.0' });
    for (const tool of tools) register(server, tool);
    const pageSize = options.pageSize;
    // Replaces McpServer's own tools/list (set once, on the first registerTool) with a paginated one.
    if (pageSize) {
      server.server.setRequestHandler(ListToolsRequestSchema, (request) => {
        const cursor = request.params?.cursor;
        listCursors.push(cursor);
        const start = Number(cursor ?? 0);
        const end = start + pageSize;
        return { tools: tools.slice(start, end).map(listedTool), ...(end < tools.length && { nextCursor: String(end) }) };
      });
    }
    servers.add(server);
    return server;
  }

  function listedTool(tool: TestMcpTool) {
    return { name: tool.name, description: tool.description, inputSchema: z.toJSONSchema(z.object(tool.inputSchema)) as { type: 'object' }, ...(tool.annotations && { annotations: tool.annotations }) };
  }

  /** Keeps the cancellation notifications a client POSTs, to show they reached the server. */
  function recordCancellations(body: unknown) {
    for (const message of Array.isArray(body) ? body : [body]) {
      const { method, params } = (message ?? {}) as { method?: string; params?: { requestId?: unknown; reason?: string } };
      if (method === 'notifications/cancelled') cancelNotifications.push({ requestId: params?.requestId, reason: params?.reason });
    }
  }

  async function readJson(request: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text ? JSON.parse(text) : undefined;
  }

  async function handleStreamable(request: IncomingMessage, response: ServerResponse) {
    const sessionId = request.headers['mcp-session-id'] as string | undefined;
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    recordCancellations(body);
    let transport = sessionId ? streamable.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId || !body || (body as { method?: string }).method !== 'initialize') {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessionCount += 1;
          streamable.set(id, transport!);
        },
      });
      await newServer().connect(transport);
    }
    await transport.handleRequest(request, response, body);
  }

  async function handleSse(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', response);
      sse.set(transport.sessionId, transport);
      sessionCount += 1;
      response.on('close', () => sse.delete(transport.sessionId));
      await newServer().connect(transport);
      return;
    }
    if (request.method === 'POST' && url.pathname === '/messages') {
      const transport = sse.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) return void response.writeHead(404).end('unknown session');
      const body = await readJson(request);
      recordCancellations(body);
      await transport.handlePostMessage(request, response, body);
      return;
    }
    // Like an old server: the Streamable HTTP endpoint does not exist.
    response.writeHead(405).end('Method Not Allowed');
  }

  const http = createServer((request, response) => {
    requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
    // Cancellations arrive as notifications (recorded as they come); the SDK then aborts the handler's signal, which the slow tool records.
    const handle = options.sseOnly ? handleSse : handleStreamable;
    handle(request, response).catch((error) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as { port: number }).port;

  async function dropSessions() {
    for (const transport of streamable.values()) await transport.close().catch(() => {});
    for (const transport of sse.values()) await transport.close().catch(() => {});
    streamable.clear();
    sse.clear();
    for (const server of servers) await server.close().catch(() => {});
    servers.clear();
    for (const socket of sockets) socket.destroy();
  }

  return {
    url: `http://127.0.0.1:${port}${options.sseOnly ? '/sse' : '/mcp'}`,
    calls,
    cancelled,
    cancelNotifications,
    listCursors,
    requests,
    sessions: () => sessionCount,
    addTool: (tool) => {
      tools.push(tool);
      for (const server of servers) register(server, tool);
    },
    dropSessions,
    close: async () => {
      await dropSessions();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
