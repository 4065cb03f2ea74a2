import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolContext, ToolResult } from '../define-tool-type';
import type { ResolveHostname } from './assert-safe-url';
import { fetchToolType } from './index';
import { guardNonLoopbackConnections, type LoopbackServer, startLoopbackServer } from './test-server';

const servers: LoopbackServer[] = [];
let guard: ReturnType<typeof guardNonLoopbackConnections>;

beforeAll(() => {
  guard = guardNonLoopbackConnections();
});
afterAll(() => {
  guard.uninstall();
  // Fake resolvers hand out public addresses; none may ever have been dialled.
  expect(guard.attempts).toEqual([]);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Parameters<typeof startLoopbackServer>[0]): Promise<LoopbackServer> {
  const server = await startLoopbackServer(handler);
  servers.push(server);
  return server;
}

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    userId: null,
    runId: null,
    sessionId: null,
    toolCallId: null,
    signal: new AbortController().signal,
    allowPrivateNetworks: true,
    services: {},
    ...overrides,
  };
}

async function run(
  input: z.input<typeof fetchToolType.inputSchema>,
  config: z.input<typeof fetchToolType.configSchema> = {},
  overrides: Partial<ToolContext> = {},
): Promise<ToolResult> {
  return fetchToolType.execute(input as never, fetchToolType.configSchema.parse(config), context(overrides));
}

/** The body between the untrusted-content markers. */
function fencedBody(result: ToolResult): string {
  const match = /<untrusted-content id="([0-9a-f]+)">\n([\s\S]*)\n<\/untrusted-content id="\1">$/.exec(String(result.data));
  if (!match) throw new Error(`not fenced: ${String(result.data)}`);
  return match[2] ?? '';
}

/** A resolver that maps test hostnames to fixed answers and records every call. */
function fakeResolver(answers: Record<string, string[] | ((call: number) => string[])>) {
  const calls: string[] = [];
  const resolve: ResolveHostname = async (hostname) => {
    calls.push(hostname);
    const answer = answers[hostname];
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return typeof answer === 'function' ? answer(calls.filter((name) => name === hostname).length) : answer;
  };
  return { resolve, calls };
}

const PAGE = `<!doctype html><html><head><title>Test page</title><style>body{color:red}</style></head>
<body><h1>Hello</h1><p>Some <strong>bold</strong> text and <a href="/next">a link</a>.</p>
<script>window.secret = "do not leak"</script><ul><li>one</li><li>two</li></ul></body></html>`;

describe('fetch tool: contract', () => {
  it('has defaults for every config field and JSON Schemas for both schemas', () => {
    expect(fetchToolType.configSchema.parse({})).toEqual({
      defaultMethod: 'GET',
      defaultHeaders: {},
      timeout: 10_000,
      maxResponseSize: 102_400,
      allowedDomains: ['*'],
      blockedDomains: [],
      parseMode: 'markdown',
    });
    const configJson = z.toJSONSchema(fetchToolType.configSchema, { io: 'input' });
    const inputJson = z.toJSONSchema(fetchToolType.inputSchema);
    expect(JSON.stringify(configJson)).toContain('Blocking wins');
    expect(inputJson).toMatchObject({ type: 'object', required: ['url'] });
    expect(fetchToolType.describe(fetchToolType.configSchema.parse({}))).toMatch(/untrusted/);
  });

  it('rejects limits above the maximums', () => {
    expect(fetchToolType.configSchema.safeParse({ timeout: 60_001 }).success).toBe(false);
    expect(fetchToolType.configSchema.safeParse({ maxResponseSize: 1_048_577 }).success).toBe(false);
    expect(fetchToolType.configSchema.safeParse({ maxResponseSize: 1_048_576 }).success).toBe(true);
  });

  it('returns invalid input as an error value instead of throwing', async () => {
    const result = await fetchToolType.execute({ nope: true } as never, fetchToolType.configSchema.parse({}), context());
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/Invalid input: url/) });
    expect(result.metadata.durationMs).toBeTypeOf('number');
  });
});

describe('fetch tool: parse modes', () => {
  it('converts HTML to markdown, drops scripts and fences the result as untrusted data', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(PAGE);
    });
    const result = await run({ url: `${server.origin}/page` });
    expect(result.success).toBe(true);
    const body = fencedBody(result);
    expect(body).toContain('# Hello');
    expect(body).toContain('**bold**');
    expect(body).toContain('[a link](/next)');
    expect(body).not.toContain('do not leak');
    expect(body).not.toContain('color:red');
    const data = String(result.data);
    expect(data).toMatch(/untrusted data/);
    expect(data).toContain(`url: ${server.origin}/page`);
    expect(data).toContain('status: 200');
    expect(data).toContain(`bytes: ${Buffer.byteLength(PAGE)}`);
    expect(data).toContain('truncated: no');
    expect(result.metadata).toMatchObject({
      statusCode: 200,
      responseSize: Buffer.byteLength(PAGE),
      finalUrl: `${server.origin}/page`,
      truncated: false,
      contentType: 'text/html; charset=utf-8',
      format: 'markdown',
    });
    expect(result.metadata.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("is one source of the answer: its title, address and start, numbered as the run's numbering says", async () => {
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(PAGE);
    });
    const alone = await run({ url: `${server.origin}/page` });
    expect(alone.metadata.sources).toEqual([{ index: 1, kind: 'web', title: 'Test page', url: `${server.origin}/page`, snippet: expect.stringContaining("# Hello Some **bold** text") }]);
    expect(String(alone.data)).toContain('source: [1] (cite what you use from this page as [1]');

    const inRun = await run({ url: `${server.origin}/page` }, {}, { sources: { reserve: (count) => (count === 1 ? 6 : -1) } });
    expect(inRun.metadata.sources).toMatchObject([{ index: 6, title: 'Test page' }]);
    expect(String(inRun.data)).toContain('source: [6] (cite what you use from this page as [6]');
  });

  it('returns non-HTML text unchanged in markdown mode', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'text/plain');
      response.end('just <b>text</b>');
    });
    const result = await run({ url: server.origin });
    expect(fencedBody(result)).toBe('just <b>text</b>');
  });

  it('parses JSON in json mode', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end('{ "answer": 42,\n  "items": [1, 2] }');
    });
    const result = await run({ url: server.origin }, { parseMode: 'json' });
    expect(result.success).toBe(true);
    expect(JSON.parse(fencedBody(result))).toEqual({ answer: 42, items: [1, 2] });
    expect(result.metadata).toMatchObject({ format: 'json' });
    expect(result.metadata.degraded).toBeUndefined();
  });

  it('degrades invalid JSON to raw text with degraded: true', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end('{ not json');
    });
    const result = await run({ url: server.origin }, { parseMode: 'json' });
    expect(result.success).toBe(true);
    expect(result.metadata).toMatchObject({ degraded: true, format: 'text' });
    expect(fencedBody(result)).toBe('{ not json');
    expect(String(result.data)).toMatch(/note: Body is not valid JSON/);
  });

  it('returns HTML untouched in raw mode', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(PAGE);
    });
    const result = await run({ url: server.origin }, { parseMode: 'raw' });
    expect(fencedBody(result)).toBe(PAGE);
  });

  it('decodes a gzip-encoded body and honours the declared charset', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'text/plain; charset=iso-8859-1');
      response.setHeader('content-encoding', 'gzip');
      response.end(gzipSync(Buffer.from([0x63, 0x61, 0x66, 0xe9]))); // "café" in Latin-1
    });
    const result = await run({ url: server.origin }, { parseMode: 'raw' });
    expect(fencedBody(result)).toBe('café');
  });

  it('refuses binary responses', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'image/png');
      response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    });
    const result = await run({ url: server.origin });
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/binary/) });
  });
});

describe('fetch tool: requests and failures', () => {
  it('sends method, body and merged headers (call headers override defaults)', async () => {
    const server = await serve((_request, response) => response.end('ok'));
    const result = await run(
      { url: server.origin, method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json', 'X-Two': 'call' } },
      { defaultHeaders: { 'x-one': 'default', 'x-two': 'default' } },
    );
    expect(result.success).toBe(true);
    const received = server.requests[0];
    expect(received).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(received?.headers).toMatchObject({ 'x-one': 'default', 'x-two': 'call', 'content-type': 'application/json' });
  });

  it('uses the configured default method', async () => {
    const server = await serve((_request, response) => response.end('ok'));
    await run({ url: server.origin }, { defaultMethod: 'DELETE' });
    expect(server.requests[0]?.method).toBe('DELETE');
  });

  it('refuses a body with GET', async () => {
    const result = await run({ url: 'http://127.0.0.1:9/', body: 'x' });
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/cannot be sent with GET/) });
  });

  it('turns a non-2xx status into a failure that carries the status code', async () => {
    const server = await serve((_request, response) => {
      response.statusCode = 404;
      response.end('missing');
    });
    const result = await run({ url: `${server.origin}/missing` });
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/HTTP 404 Not Found/) });
    expect(result.metadata).toMatchObject({ statusCode: 404, finalUrl: `${server.origin}/missing` });
  });

  it('truncates an oversized body that declares its Content-Length', async () => {
    const big = 'a'.repeat(5_000);
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'text/plain');
      response.setHeader('content-length', String(big.length));
      response.end(big);
    });
    const result = await run({ url: server.origin }, { maxResponseSize: 1_000, parseMode: 'raw' });
    expect(result.success).toBe(true);
    expect(result.metadata).toMatchObject({ truncated: true, responseSize: 1_000, declaredSize: 5_000 });
    expect(fencedBody(result)).toBe('a'.repeat(1_000));
    expect(String(result.data)).toMatch(/truncated: yes/);
  });

  it('stops reading a chunked body without Content-Length once it passes the cap', async () => {
    let chunksWritten = 0;
    let aborted = false;
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'text/plain');
      // Endless chunked body: only the client hanging up ends it.
      const interval = setInterval(() => {
        chunksWritten += 1;
        response.write('b'.repeat(512));
      }, 2);
      response.on('close', () => {
        clearInterval(interval);
        aborted = !response.writableFinished;
      });
    });
    const result = await run({ url: server.origin }, { maxResponseSize: 4_096, parseMode: 'raw' });
    expect(result.success).toBe(true);
    expect(result.metadata).toMatchObject({ truncated: true, responseSize: 4_096 });
    expect(result.metadata.declaredSize).toBeUndefined();
    await expect.poll(() => aborted).toBe(true);
    expect(chunksWritten).toBeLessThan(200);
  });

  it('times out a server that never answers', async () => {
    const server = await serve(() => {
      /* never responds */
    });
    const result = await run({ url: server.origin }, { timeout: 300 });
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/timed out after 300 ms/) });
    expect(result.metadata).toMatchObject({ timedOut: true });
    expect(result.metadata.durationMs).toBeLessThan(3_000);
  });

  it('times out a body that stalls after the headers', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('content-type', 'text/plain');
      response.write('partial');
    });
    const result = await run({ url: server.origin }, { timeout: 300 });
    expect(result).toMatchObject({ success: false, metadata: { timedOut: true } });
  });

  it('stops when the run is cancelled through context.signal', async () => {
    const server = await serve(() => {
      /* never responds */
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await run({ url: server.origin }, { timeout: 10_000 }, { signal: controller.signal });
    expect(result).toMatchObject({ success: false, metadata: { cancelled: true } });
    expect(result.metadata.durationMs).toBeLessThan(3_000);
  });

  it('reports a host that does not resolve', async () => {
    const { resolve } = fakeResolver({});
    const result = await run({ url: 'http://nowhere.test/' }, {}, { services: { resolveHostname: resolve } });
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/Could not resolve the host \(ENOTFOUND\)/) });
  });

  it('refuses schemes other than http and https', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'gopher://example.com/', 'not a url']) {
      const result = await run({ url });
      expect(result.success, url).toBe(false);
    }
  });
});

describe('fetch tool: redirects', () => {
  it('follows a redirect chain and reports the final URL', async () => {
    const target = await serve((_request, response) => response.end('landed'));
    const middle = await serve((_request, response) => {
      response.writeHead(302, { location: `${target.origin}/end` });
      response.end();
    });
    const start = await serve((_request, response) => {
      response.writeHead(301, { location: `${middle.origin}/hop` });
      response.end();
    });
    const result = await run({ url: `${start.origin}/begin` }, { parseMode: 'raw' });
    expect(result.success).toBe(true);
    expect(fencedBody(result)).toBe('landed');
    expect(result.metadata).toMatchObject({ finalUrl: `${target.origin}/end`, redirects: 2 });
  });

  it('refuses a chain whose last hop is a refused address, without reaching it', async () => {
    // 0.0.0.0 really does reach this machine's loopback listeners on Linux: a classic bypass.
    const hidden = await serve((_request, response) => response.end('internal secret'));
    const middle = await serve((_request, response) => {
      response.writeHead(307, { location: `http://0.0.0.0:${hidden.port}/admin` });
      response.end();
    });
    const start = await serve((_request, response) => {
      response.writeHead(302, { location: `${middle.origin}/` });
      response.end();
    });
    const result = await run({ url: start.origin });
    expect(result).toMatchObject({ success: false, metadata: { blocked: true, redirects: 2 } });
    expect(result.error).toMatch(/0\.0\.0\.0/);
    expect(hidden.connections()).toBe(0);
    expect(middle.requests).toHaveLength(1);
  });

  it('refuses a redirect to a hostname with one refused record among its addresses', async () => {
    const start = await serve((_request, response) => {
      response.writeHead(302, { location: 'http://metadata.test/' });
      response.end();
    });
    const { resolve } = fakeResolver({ 'metadata.test': ['127.0.0.1', '169.254.169.254', '0.0.0.0'] });
    const result = await run({ url: start.origin }, {}, { services: { resolveHostname: resolve } });
    expect(result).toMatchObject({ success: false, metadata: { blocked: true } });
  });

  it('refuses a redirect to another scheme or a blocked domain', async () => {
    const toFile = await serve((_request, response) => {
      response.writeHead(302, { location: 'file:///etc/passwd' });
      response.end();
    });
    expect(await run({ url: toFile.origin })).toMatchObject({ success: false, metadata: { blocked: true } });

    const toBlocked = await serve((_request, response) => {
      response.writeHead(302, { location: 'http://evil.test/' });
      response.end();
    });
    const { resolve, calls } = fakeResolver({ 'evil.test': ['127.0.0.1'] });
    const result = await run({ url: toBlocked.origin }, { blockedDomains: ['evil.test'] }, { services: { resolveHostname: resolve } });
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/blocked domain "evil.test"/) });
    expect(calls).toEqual([]);
  });

  it('gives up after five redirects', async () => {
    const loop = await serve((request, response) => {
      const hop = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('hop') ?? 0);
      response.writeHead(302, { location: `/?hop=${hop + 1}` });
      response.end();
    });
    const result = await run({ url: loop.origin });
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/Too many redirects/) });
    expect(loop.requests).toHaveLength(6);
  });

  it('drops credentials on a cross-origin redirect and turns POST into GET on 303', async () => {
    const target = await serve((_request, response) => response.end('ok'));
    const start = await serve((_request, response) => {
      response.writeHead(303, { location: `${target.origin}/after` });
      response.end();
    });
    const result = await run({
      url: start.origin,
      method: 'POST',
      body: 'payload',
      headers: { authorization: 'Bearer secret', 'content-type': 'text/plain' },
    });
    expect(result.success).toBe(true);
    expect(start.requests[0]?.headers.authorization).toBe('Bearer secret');
    const received = target.requests[0];
    expect(received).toMatchObject({ method: 'GET', body: '' });
    expect(received?.headers.authorization).toBeUndefined();
    expect(received?.headers['content-type']).toBeUndefined();
  });
});

describe('fetch tool: redirects to another origin (issue 12, finding 6)', () => {
  it('drops every configured header and every model header but accept, accept-language and user-agent', async () => {
    const target = await serve((_request, response) => response.end('landed'));
    const start = await serve((_request, response) => {
      response.writeHead(302, { location: `${target.origin}/after` });
      response.end();
    });
    const result = await run(
      {
        url: `${start.origin}/`,
        headers: { 'X-Model-Token': 'model-secret', Accept: 'text/plain', 'Accept-Language': 'de', 'User-Agent': 'model-agent/1', 'X-Trace': 't' },
      },
      { defaultHeaders: { 'x-api-key': 'admin-key', Authorization: 'Bearer admin', 'accept-language': 'fr' } },
    );
    expect(result.success).toBe(true);
    // The first origin got everything it was meant to get.
    expect(start.requests[0]?.headers).toMatchObject({ 'x-api-key': 'admin-key', authorization: 'Bearer admin', 'x-model-token': 'model-secret', 'x-trace': 't' });
    const received = target.requests[0]!.headers;
    expect(received['x-api-key']).toBeUndefined();
    expect(received.authorization).toBeUndefined();
    expect(received['x-model-token']).toBeUndefined();
    expect(received['x-trace']).toBeUndefined();
    expect(received).toMatchObject({ accept: 'text/plain', 'accept-language': 'de', 'user-agent': 'model-agent/1' });
  });

  it('keeps the headers on a same-origin redirect, and does not restore them after coming back from another origin', async () => {
    const home = await serve((request, response) => {
      if (request.url === '/start') response.writeHead(301, { location: '/same' }).end();
      else if (request.url === '/same') response.writeHead(302, { location: `${away.origin}/bounce` }).end();
      else response.end('home again');
    });
    const away = await serve((_request, response) => response.writeHead(302, { location: `${home.origin}/end` }).end());
    const result = await run({ url: `${home.origin}/start` }, { defaultHeaders: { 'x-api-key': 'admin-key' } });
    expect(result).toMatchObject({ success: true, metadata: { redirects: 3 } });
    expect(home.requests.map((request) => [request.url, request.headers['x-api-key']])).toEqual([
      ['/start', 'admin-key'],
      ['/same', 'admin-key'],
      ['/end', undefined],
    ]);
    expect(away.requests[0]?.headers['x-api-key']).toBeUndefined();
  });

  it('does not follow a cross-origin 307/308 that would replay the body, and reports status and Location to the model', async () => {
    for (const status of [307, 308]) {
      const target = await serve((_request, response) => response.end('should not be reached'));
      const start = await serve((_request, response) => response.writeHead(status, { location: `${target.origin}/collect` }).end());
      const result = await run({ url: `${start.origin}/submit`, method: 'POST', body: 'secret=1', headers: { 'content-type': 'text/plain' } });
      expect(result).toMatchObject({
        success: false,
        error: expect.stringContaining(`HTTP ${status} redirect to ${target.origin}/collect was not followed`),
        metadata: { statusCode: status, location: `${target.origin}/collect`, redirectNotFollowed: true },
      });
      expect(target.connections()).toBe(0);
    }
  });

  it('still follows a same-origin 307 with its body, and a cross-origin 307 of a GET', async () => {
    const start = await serve((request, response, body) => {
      if (request.url === '/first') response.writeHead(307, { location: '/second' }).end();
      else response.end(`got ${request.method} ${body}`);
    });
    const same = await run({ url: `${start.origin}/first`, method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } });
    expect(fencedBody(same)).toContain('got POST payload');
    const target = await serve((request, response) => response.end(`got ${request.method}`));
    const hop = await serve((_request, response) => response.writeHead(307, { location: `${target.origin}/x` }).end());
    const get = await run({ url: `${hop.origin}/` });
    expect(fencedBody(get)).toContain('got GET');
  });
});

describe('fetch tool: domain lists', () => {
  const { resolve } = fakeResolver({
    'api.example.test': ['127.0.0.1'],
    // The URL keeps the trailing root dot, and so does the name handed to the resolver.
    'deep.api.example.test.': ['127.0.0.1'],
    'example.test': ['127.0.0.1'],
    'bad.example.test': ['127.0.0.1'],
    'other.test': ['127.0.0.1'],
  });

  it('allows wildcard subdomains, not the apex or other hosts, and lets the block list win', async () => {
    const server = await serve((_request, response) => response.end('ok'));
    const config = { allowedDomains: ['*.example.test'], blockedDomains: ['bad.example.test'] };
    const services = { resolveHostname: resolve };
    const at = (host: string) => `http://${host}:${server.port}/`;

    expect(await run({ url: at('api.example.test') }, config, { services })).toMatchObject({ success: true });
    const deep = await run({ url: at('DEEP.api.example.test.') }, config, { services });
    expect(deep, JSON.stringify(deep)).toMatchObject({ success: true });
    const apex = await run({ url: at('example.test') }, config, { services });
    expect(apex).toMatchObject({ success: false, error: expect.stringMatching(/not in the allowed domains/) });
    expect(await run({ url: at('other.test') }, config, { services })).toMatchObject({ success: false });
    const blocked = await run({ url: at('bad.example.test') }, config, { services });
    expect(blocked).toMatchObject({ success: false, error: expect.stringMatching(/blocked domain/) });
    expect(server.requests).toHaveLength(2);
  });

  it('treats an empty allow list as allow-all and a "*" block list as block-all', async () => {
    const server = await serve((_request, response) => response.end('ok'));
    const services = { resolveHostname: resolve };
    const url = `http://other.test:${server.port}/`;
    expect(await run({ url }, { allowedDomains: [] }, { services })).toMatchObject({ success: true });
    expect(await run({ url }, { blockedDomains: ['*'] }, { services })).toMatchObject({ success: false });
  });
});

describe('fetch tool: SSRF', () => {
  it('refuses a loopback server unless private networks are allowed', async () => {
    const server = await serve((_request, response) => response.end('ok'));
    const refused = await run({ url: server.origin }, {}, { allowPrivateNetworks: false });
    expect(refused).toMatchObject({ success: false, metadata: { blocked: true } });
    expect(refused.error).toMatch(/loopback/);
    expect(server.connections()).toBe(0);
    expect(await run({ url: server.origin })).toMatchObject({ success: true });
  });

  it('refuses a hostname that resolves to a private address', async () => {
    const server = await serve((_request, response) => response.end('internal'));
    const { resolve, calls } = fakeResolver({ 'intranet.test': ['10.1.2.3'], 'loop.test': ['127.0.0.1'] });
    const services = { resolveHostname: resolve };
    const first = await run({ url: 'http://intranet.test/' }, {}, { allowPrivateNetworks: false, services });
    expect(first).toMatchObject({ success: false, metadata: { blocked: true } });
    expect(first.error).toMatch(/intranet\.test resolves to 10\.1\.2\.3/);
    const second = await run({ url: `http://loop.test:${server.port}/` }, {}, { allowPrivateNetworks: false, services });
    expect(second).toMatchObject({ success: false, metadata: { blocked: true } });
    expect(calls).toEqual(['intranet.test', 'loop.test']);
    expect(server.connections()).toBe(0);
  });

  it('never connects when DNS rebinds between the check and the connection', async () => {
    const server = await serve((_request, response) => response.end('internal'));
    // First answer public (passes the pre-flight check), every later answer loopback: the
    // classic rebinding attack. The connect-time lookup must re-check and refuse.
    const { resolve, calls } = fakeResolver({
      'rebind.test': (call) => (call === 1 ? ['93.184.215.14'] : ['127.0.0.1']),
    });
    const result = await run(
      { url: `http://rebind.test:${server.port}/` },
      {},
      { allowPrivateNetworks: false, services: { resolveHostname: resolve } },
    );
    expect(result).toMatchObject({ success: false, metadata: { blocked: true } });
    expect(result.error).toMatch(/rebind\.test resolves to 127\.0\.0\.1/);
    expect(calls).toEqual(['rebind.test', 'rebind.test']);
    expect(server.connections()).toBe(0);
    expect(guard.attempts).toEqual([]);
  });

  it('connects to the address from its own checked lookup (the injected resolver), not system DNS', async () => {
    const server = await serve((_request, response) => response.end('via injected resolver'));
    const { resolve, calls } = fakeResolver({ 'service.test': ['127.0.0.1'] });
    const result = await run(
      { url: `http://service.test:${server.port}/` },
      { parseMode: 'raw' },
      { services: { resolveHostname: resolve } },
    );
    expect(fencedBody(result)).toBe('via injected resolver');
    // Pre-flight check + connect-time lookup: two lookups, one connection.
    expect(calls).toEqual(['service.test', 'service.test']);
    expect(server.requests[0]?.headers.host).toBe(`service.test:${server.port}`);
  });

  describe('with proxy variables set', () => {
    const saved: Record<string, string | undefined> = {};
    const names = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'NO_PROXY', 'no_proxy'];
    let proxy: LoopbackServer;

    beforeAll(async () => {
      proxy = await startLoopbackServer((_request, response) => response.end('from proxy'));
      for (const name of names) saved[name] = process.env[name];
      for (const name of names.filter((name) => name.toLowerCase().includes('proxy') && !name.toLowerCase().startsWith('no'))) {
        process.env[name] = proxy.origin;
      }
      process.env.NO_PROXY = '';
      process.env.no_proxy = '';
    });
    afterAll(async () => {
      for (const name of names) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
      await proxy.close();
    });

    it('neither routes through the proxy nor lets it bypass the check', async () => {
      const server = await serve((_request, response) => response.end('direct'));
      const direct = await run({ url: server.origin }, { parseMode: 'raw' });
      expect(fencedBody(direct)).toBe('direct');
      const { resolve } = fakeResolver({ 'intranet.test': ['10.0.0.8'] });
      const refused = await run(
        { url: 'http://intranet.test/' },
        {},
        { allowPrivateNetworks: false, services: { resolveHostname: resolve } },
      );
      expect(refused).toMatchObject({ success: false, metadata: { blocked: true } });
      expect(proxy.connections()).toBe(0);
    });
  });
});
