import type { Context } from 'hono';
import type { AppEnv } from '../deps';

/** What a server-sent events handler writes to. */
export type SseStream = {
  /** Queues text or bytes for the client; waits only while the client is `HIGH_WATER_MARK` chunks behind. */
  write: (frame: string | Uint8Array) => Promise<void>;
  /** Called once when the client goes away before the handler finished. */
  onAbort: (listener: () => void) => void;
  readonly aborted: boolean;
  readonly closed: boolean;
};

/** Chunks queued for a slow client before `write` waits for it to read. */
const HIGH_WATER_MARK = 16;
const encoder = new TextEncoder();

/**
 * A `text/event-stream` response whose body is one ReadableStream the handler enqueues into.
 * Hono's streamSSE puts a TransformStream and a second, pulling ReadableStream between each write
 * and the socket: three web streams per event per follower, most of the API's CPU when one run
 * streamed to 200 followers (docs/benchmarks.md, tenth round). A handler's throw is logged and
 * ends the stream, as streamSSE does.
 */
export function sseResponse(c: Context<AppEnv>, handler: (stream: SseStream) => Promise<void>): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  /** Writers waiting for the client to read (a handler may write from more than one place). */
  const pulled: (() => void)[] = [];
  const release = () => {
    for (const resolve of pulled.splice(0)) resolve();
  };
  const abortListeners: (() => void)[] = [];
  const state = { aborted: false, closed: false };
  const body = new ReadableStream<Uint8Array>(
    {
      start: (streamController) => void (controller = streamController),
      pull: release,
      cancel: () => {
        if (state.closed || state.aborted) return;
        state.aborted = true;
        release();
        for (const listener of abortListeners.splice(0)) listener();
      },
    },
    new CountQueuingStrategy({ highWaterMark: HIGH_WATER_MARK }),
  );
  const stream: SseStream = {
    get aborted() {
      return state.aborted;
    },
    get closed() {
      return state.closed;
    },
    onAbort: (listener) => void abortListeners.push(listener),
    write: async (frame) => {
      if (state.aborted || state.closed) return;
      controller.enqueue(typeof frame === 'string' ? encoder.encode(frame) : frame);
      if ((controller.desiredSize ?? 1) <= 0) await new Promise<void>((resolve) => pulled.push(resolve));
    },
  };
  void handler(stream)
    .catch((error: unknown) => c.var.logger.error({ err: error, path: c.req.path }, 'event stream failed'))
    .finally(() => {
      if (state.aborted || state.closed) return;
      state.closed = true;
      controller.close();
    });
  c.header('Transfer-Encoding', 'chunked');
  c.header('Content-Type', 'text/event-stream');
  // no-transform: a compressing proxy would hold events back to fill its blocks.
  c.header('Cache-Control', 'no-cache, no-transform');
  c.header('Connection', 'keep-alive');
  return c.newResponse(body);
}
