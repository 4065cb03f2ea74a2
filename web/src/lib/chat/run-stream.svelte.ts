import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { TERMINAL_STATUSES, withoutRetriedAttempts, type RunChunk, type RunStatusData, type SessionTitleData } from '@agentq/shared/events';
import { ApiError } from '../api.ts';
import { t } from '../i18n/i18n.svelte.ts';
import { cancelRun, getRun, runEventsUrl, type RunStatus } from '../runs/runs-api.ts';
import { followRunEvents, type RunEvent } from './follow-run-events.ts';

export type RunStreamOptions = {
  /** The status the run is known to have before any event arrives (e.g. `queued` from the 202). */
  status?: RunStatus;
  /** Where the events are served; defaults to `/api/runs/:id/events`. */
  eventsUrl?: string;
  fetch?: typeof fetch;
  /** The chat's model named the chat (`data-session-title`, sent before the run's end); a replay sends it again. */
  onSessionTitle?: (data: SessionTitleData) => void;
};

/**
 * One run's assistant message as it streams in. Follows the run's SSE events (replayed from
 * the start, then live; reconnecting with `Last-Event-ID` on a dropped connection) and builds
 * the message with the AI SDK's own `readUIMessageStream`, the reducer the worker persists
 * with, so the page shows exactly what a reload will show. Transient `data-run-status`
 * chunks and `error` chunks are state of the run, not parts of the message.
 * @example const stream = new RunStream(runId); stream.start(); … {#if stream.message}…
 */
export class RunStream {
  readonly runId: string;
  /** The assistant message so far (a fresh snapshot per update); undefined before the first chunk. */
  message = $state.raw<UIMessage | undefined>(undefined);
  /** `connecting` until the run reports its status. */
  status = $state<RunStatus | 'connecting'>('connecting');
  error = $state<string | undefined>(undefined);
  hitStepLimit = $state(false);
  /** The event stream ended (`[DONE]`, or it could not be followed); the message is final. */
  closed = $state(false);
  /** The connection dropped and is being re-opened. */
  reconnecting = $state(false);
  /** Stop was requested and the run has not ended yet. */
  stopping = $state(false);

  readonly #options: RunStreamOptions;
  readonly #abort = new AbortController();
  #started = false;
  #pending: UIMessage | undefined;
  #frame: number | undefined;

  constructor(runId: string, options: RunStreamOptions = {}) {
    this.runId = runId;
    this.#options = options;
    if (options.status) this.status = options.status;
  }

  /** True while the run can still change: not ended and still followed. */
  get active(): boolean {
    return !this.closed && !isTerminal(this.status);
  }

  /** Opens the event stream; a second call does nothing. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    void this.#follow();
  }

  /** Stops following (the run itself goes on: closing is not cancelling). */
  close(): void {
    this.#abort.abort();
    this.#flush();
    this.closed = true;
  }

  /**
   * Asks the API to cancel the run. The stream then ends with status `cancelled` and the
   * partial answer kept. A run that already ended is not an error.
   * @throws {ApiError} when the request fails for another reason.
   */
  async stop(): Promise<void> {
    if (!this.active || this.stopping) return;
    this.stopping = true;
    try {
      await cancelRun(this.runId, { fetch: this.#options.fetch });
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 409) return;
      this.stopping = false;
      throw caught;
    }
  }

  /** A reducer fed with this run's chunks; replaced when a step is retried. */
  #startReducer(): Reducer {
    let input!: ReadableStreamDefaultController<UIMessageChunk>;
    const chunks = new ReadableStream<UIMessageChunk>({ start: (controller) => void (input = controller) });
    const reducer: Reducer = { input, building: Promise.resolve(), stale: false };
    reducer.building = this.#build(chunks, reducer);
    return reducer;
  }

  async #follow(): Promise<void> {
    let reducer = this.#startReducer();
    const received: RunEvent[] = [];
    const url = this.#options.eventsUrl ?? runEventsUrl(this.runId);
    try {
      const events = followRunEvents(url, {
        signal: this.#abort.signal,
        fetch: this.#options.fetch,
        onConnection: (state) => (this.reconnecting = state === 'reconnecting'),
      });
      for await (const event of events) {
        received.push(event);
        if (event.chunk.type !== 'data-step-retry') {
          this.#apply(event.chunk, reducer.input);
          continue;
        }
        // A worker re-runs a step a crash cut short: rebuild the message without the abandoned attempt.
        reducer.stale = true;
        closeQuietly(reducer.input);
        this.#pending = undefined;
        reducer = this.#startReducer();
        for (const kept of withoutRetriedAttempts(received)) this.#apply(kept.chunk, reducer.input);
      }
    } catch (caught) {
      if (!this.#abort.signal.aborted) this.error ??= caught instanceof Error ? caught.message : String(caught);
    } finally {
      this.reconnecting = false;
      closeQuietly(reducer.input);
    }
    await reducer.building;
    this.#flush();
    // The stream ended without saying how the run ended (a replay without its status events, or a
    // connection given up on): ask the run itself, so the page never shows a finished run as running.
    if (!isTerminal(this.status) && !this.#abort.signal.aborted) await this.#readOutcome();
    this.stopping = false;
    this.closed = true;
  }

  async #readOutcome(): Promise<void> {
    try {
      const run = await getRun(this.runId, { fetch: this.#options.fetch });
      this.status = run.status;
      if (run.error) this.error ??= run.error;
      if (run.hitStepLimit) this.hitStepLimit = true;
    } catch {
      // Unknown: it keeps the last status it reported.
    }
  }

  #apply(chunk: RunChunk, input: ReadableStreamDefaultController<UIMessageChunk>): void {
    if (chunk.type === 'data-run-status') {
      const data = chunk.data as RunStatusData;
      this.status = data.status;
      if (data.hitStepLimit) this.hitStepLimit = true;
      if (data.error) this.error = data.error;
      return;
    }
    if (chunk.type === 'data-session-title') {
      this.#options.onSessionTitle?.(chunk.data as SessionTitleData);
      return;
    }
    // Like the worker's assembleMessage: transient parts and the stream's own error/abort
    // bookkeeping never become parts of the message.
    if ((chunk as { transient?: boolean }).transient) return;
    if (chunk.type === 'error') {
      this.error = chunk.errorText;
      return;
    }
    if (chunk.type === 'abort') return;
    try {
      input.enqueue(chunk as UIMessageChunk);
    } catch {
      // The reducer stopped on an earlier chunk; the status chunks above still count.
    }
  }

  async #build(chunks: ReadableStream<UIMessageChunk>, reducer: Reducer): Promise<void> {
    const messages = readUIMessageStream<UIMessage>({
      stream: chunks,
      onError: (error) => {
        this.error ??= t('chat.partNotShown', { error: error instanceof Error ? error.message : String(error) });
      },
    });
    for await (const snapshot of messages) if (!reducer.stale) this.#schedule(snapshot);
  }

  // A replay delivers hundreds of chunks at once: render at most one snapshot per frame.
  #schedule(snapshot: UIMessage): void {
    this.#pending = snapshot;
    if (this.#frame !== undefined) return;
    // A hidden tab gets no frames: it catches up when shown, or when the stream ends.
    this.#frame = requestAnimationFrame(() => this.#flush());
  }

  #flush(): void {
    if (this.#frame !== undefined) cancelAnimationFrame(this.#frame);
    this.#frame = undefined;
    if (this.#pending) this.message = this.#pending;
    this.#pending = undefined;
  }
}

type Reducer = { input: ReadableStreamDefaultController<UIMessageChunk>; building: Promise<void>; stale: boolean };

function closeQuietly(input: ReadableStreamDefaultController<UIMessageChunk>): void {
  try {
    input.close();
  } catch {
    // The reducer already stopped (it reported why through onError).
  }
}

export function isTerminal(status: RunStatus | 'connecting'): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}
