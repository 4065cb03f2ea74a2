import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { AppEnv } from '../deps';

/** What a server-sent events handler writes to. */
export type SseStream = {
  /** Sends text or bytes to the client; waits only while the client is that far behind (see `HIGH_WATER_MARK`). */
  write: (frame: string | Uint8Array) => Promise<void>;
  /** Called once when the client goes away before the handler finished. */
  onAbort: (listener: () => void) => void;
  readonly aborted: boolean;
  readonly closed: boolean;
};

/** Chunks queued for a slow client before `write` waits for it to read (before the head, on the direct path). */
const HIGH_WATER_MARK = 16;
const encoder = new TextEncoder();

/** The Node response under @hono/node-server (`c.env.outgoing`); absent for `app.request` and other runtimes. */
function nodeResponseOf(c: Context<AppEnv>): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  return typeof outgoing?.write === 'function' && typeof outgoing.on === 'function' ? outgoing : undefined;
}

/**
 * A `text/event-stream` response. Hono's streamSSE puts a TransformStream and a second, pulling
 * ReadableStream between each write and the socket: three web streams per event per follower, most
 * of the API's CPU when one run streamed to 200 followers (docs/benchmarks.md, tenth round).
 *
 * Here the body is one ReadableStream, and under @hono/node-server even that carries only what is
 * written before the response head: node-server writes the head (with every header the middleware
 * added on the way out), then reads the body, and that first read with nothing queued is the signal
 * to write every later frame straight to the Node response, skipping the web stream's read/write
 * round per frame and follower. The body stays open until the handler returns; closing it is what
 * makes node-server end the response, and its cancel (the client went away) is the abort. A
 * handler's throw is logged and ends the stream, as streamSSE does.
 */
export function sseResponse(c: Context<AppEnv>, handler: (stream: SseStream) => Promise<void>): Response {
  const socket = nodeResponseOf(c);
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  /** Set once the head is out (node-server's first read found the queue empty): frames go straight to `socket`. */
  let direct = false;
  /** Writers waiting for the client to read (a handler may write from more than one place). */
  const waiting: (() => void)[] = [];
  const release = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  const abortListeners: (() => void)[] = [];
  const state = { aborted: false, closed: false };
  const body = new ReadableStream<Uint8Array>(
    {
      start: (streamController) => void (controller = streamController),
      pull: () => {
        if (socket && !direct) {
          direct = true;
          socket.on('drain', release);
        }
        release();
      },
      cancel: () => {
        if (state.closed || state.aborted) return;
        state.aborted = true;
        release();
        for (const listener of abortListeners.splice(0)) listener();
      },
    },
    // On the direct path nothing is pulled ahead: the first read with an empty queue must come from node-server, after the head.
    new CountQueuingStrategy({ highWaterMark: socket ? 0 : HIGH_WATER_MARK }),
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
      if (direct) {
        // false: the socket's buffer is past its high-water mark; wait for 'drain' (or the abort).
        if (!socket!.write(frame)) await new Promise<void>((resolve) => waiting.push(resolve));
        return;
      }
      controller.enqueue(typeof frame === 'string' ? encoder.encode(frame) : frame);
      // The direct path's queue has a high-water mark of 0, so the same bound is its desired size's floor.
      if ((controller.desiredSize ?? 1) <= (socket ? -HIGH_WATER_MARK : 0)) await new Promise<void>((resolve) => waiting.push(resolve));
    },
  };
  void handler(stream)
    .catch((error: unknown) => c.var.logger.error({ err: error, path: c.req.path }, 'event stream failed'))
    .finally(() => {
      if (state.aborted || state.closed) return;
      state.closed = true;
      socket?.off('drain', release);
      controller.close();
    });
  c.header('Transfer-Encoding', 'chunked');
  c.header('Content-Type', 'text/event-stream');
  // no-transform: a compressing proxy would hold events back to fill its blocks.
  c.header('Cache-Control', 'no-cache, no-transform');
  c.header('Connection', 'keep-alive');
  return c.newResponse(body);
}
