import { Agent, request, type IncomingMessage } from 'node:http';
import { parseSseFrame, type SseFrame } from '../testing/sse-frame';

/**
 * The load harness's HTTP client for what it times (enqueue, SSE streams): node:http on kept-alive
 * connections, like autocannon. The harness shares the machine with what it measures, and fetch's
 * web-streams plumbing cost ~3 ms of the harness's own time per enqueue on this two-core machine
 * (docs/benchmarks.md), which showed up as agentq's latency.
 */
const agent = new Agent({ keepAlive: true });

function send(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const headers = init.body === undefined ? init.headers : { ...init.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(init.body)) };
    const outgoing = request(url, { method: init.method, headers, agent }, resolve);
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

/** POSTs `body` as JSON to `path` of the API, signed in as `client`; resolves once the whole response is read. */
export async function postJson(client: { baseUrl: string; cookieHeader: string }, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await send(`${client.baseUrl}${path}`, { method: 'POST', headers: { cookie: client.cookieHeader }, body: JSON.stringify(body) });
  response.setEncoding('utf8');
  let text = '';
  for await (const chunk of response) text += chunk;
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: kept as text for the error message
  }
  return { status: response.statusCode ?? 0, body: parsed };
}

/**
 * Opens an SSE stream (a GET, or a POST of `post.body` that answers one); `frames` yields each frame
 * with the time its bytes arrived (performance.now()). Resolves once the response head is in; a
 * non-2xx status has no frames.
 */
export async function openEventStream(
  url: string,
  headers: Record<string, string>,
  post?: { body: unknown },
): Promise<{ status: number; headers: IncomingMessage['headers']; frames: AsyncGenerator<SseFrame & { at: number }> }> {
  const response = await send(url, { method: post ? 'POST' : 'GET', headers: { accept: 'text/event-stream', ...headers }, body: post ? JSON.stringify(post.body) : undefined });
  const status = response.statusCode ?? 0;
  response.setEncoding('utf8');
  async function* frames() {
    if (status < 200 || status >= 300) {
      response.resume();
      return;
    }
    let buffer = '';
    for await (const chunk of response as AsyncIterable<string>) {
      const at = performance.now();
      buffer += chunk;
      let boundary: number;
      while ((boundary = buffer.indexOf('\n\n')) >= 0) {
        const frame = parseSseFrame(buffer.slice(0, boundary));
        buffer = buffer.slice(boundary + 2);
        yield { ...frame, at };
      }
    }
  }
  return { status, headers: response.headers, frames: frames() };
}
