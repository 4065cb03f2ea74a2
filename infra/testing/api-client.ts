import type { RunChunk, RunEvent } from '@agentq/shared/events';
import { parseSseFrame } from './sse-frame';

/** A small HTTP client for tests and the load harness: real requests, cookie session. */
export class ApiClient {
  private cookie = '';

  constructor(readonly baseUrl: string) {}

  /** The session cookie, for callers that make their own requests (SSE readers). */
  get cookieHeader(): string {
    return this.cookie;
  }

  /** The same session against another origin (another API process on the same database). */
  at(baseUrl: string): ApiClient {
    const client = new ApiClient(baseUrl);
    client.cookie = this.cookie;
    return client;
  }

  static async login(baseUrl: string, credentials: { email: string; password: string }): Promise<ApiClient> {
    const client = new ApiClient(baseUrl);
    const response = await fetch(`${baseUrl}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) });
    if (!response.ok) throw new Error(`login failed: ${response.status} ${await response.text()}`);
    client.cookie = response.headers.get('set-cookie')?.split(';')[0] ?? '';
    return client;
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { cookie: this.cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // non-JSON body (e.g. SSE) stays text
    }
    return { status: response.status, body: parsed };
  }

  get = (path: string) => this.request('GET', path);
  post = (path: string, body?: unknown, headers?: Record<string, string>) => this.request('POST', path, body, headers);
  put = (path: string, body?: unknown) => this.request('PUT', path, body);

  /**
   * Reads a run's SSE stream into events. Stops at the end of the stream, after `maxEvents`,
   * or when `until` says so (then the connection is dropped, as a closing tab would).
   */
  async readEvents(runId: string, options: { lastEventId?: number; maxEvents?: number; until?: (event: RunEvent) => boolean; timeoutMs?: number } = {}): Promise<{ events: RunEvent[]; status: number; done: boolean }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 30_000);
    const response = await fetch(`${this.baseUrl}/api/runs/${runId}/events`, {
      headers: { cookie: this.cookie, accept: 'text/event-stream', ...(options.lastEventId ? { 'last-event-id': String(options.lastEventId) } : {}) },
      signal: controller.signal,
    });
    const events: RunEvent[] = [];
    let done = false;
    if (!response.ok || !response.body) {
      clearTimeout(timer);
      return { events, status: response.status, done };
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      const reader = response.body.getReader();
      outer: for (;;) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        buffer += decoder.decode(value, { stream: true });
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) >= 0) {
          const { id, data } = parseSseFrame(buffer.slice(0, boundary));
          buffer = buffer.slice(boundary + 2);
          if (data === '[DONE]') {
            done = true;
            break outer;
          }
          if (!data || id === undefined) continue;
          const event: RunEvent = { runId, seq: id, chunk: JSON.parse(data) as RunChunk };
          events.push(event);
          if (options.until?.(event) || (options.maxEvents && events.length >= options.maxEvents)) {
            controller.abort();
            break outer;
          }
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
    }
    return { events, status: response.status, done };
  }
}
