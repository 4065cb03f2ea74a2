import { t } from '../i18n/i18n.svelte.ts';
import { readSse } from './sse.ts';
import type { RunChunk, RunEvent as StoredRunEvent } from '@agentq/shared/events';

/** A chunk with its gap-free per-run sequence number (the SSE event id). */
export type RunEvent = Pick<StoredRunEvent, 'seq' | 'chunk'>;

/** The run's events cannot be read (signed out, not yours, gone): reconnecting would not help. */
export class RunEventsError extends Error {
  override name = 'RunEventsError';
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export type FollowRunEventsOptions = {
  /** Ends the stream (the run itself keeps going: stop is not disconnect). */
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** Resume after this sequence number; 0 (default) replays the run from its start. */
  afterSeq?: number;
  /** Waits before each reconnect attempt; the last one repeats. */
  retryDelaysMs?: readonly number[];
  /** Consecutive failed attempts (no event received in between) before giving up. */
  maxAttempts?: number;
  /** The connection opened, or dropped and is being re-established. */
  onConnection?: (state: 'open' | 'reconnecting') => void;
};

const DEFAULT_RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000];
const DEFAULT_MAX_ATTEMPTS = 30;
// Answers that a retry cannot fix; anything else (5xx, 429, a dropped socket) is retried.
const PERMANENT_STATUSES = new Set([400, 401, 403, 404, 410]);

/**
 * Follows `GET /api/runs/:id/events`: yields each event once, in sequence order, until `[DONE]`.
 * A dropped connection is re-opened with `Last-Event-ID` set to the last sequence number seen,
 * and anything at or below it is skipped, so a reconnect never duplicates an event.
 * @throws {RunEventsError} on a permanent HTTP error or after `maxAttempts` failed reconnects.
 * @example for await (const { seq, chunk } of followRunEvents(`/api/runs/${runId}/events`, { signal })) …
 */
export async function* followRunEvents(url: string, options: FollowRunEventsOptions = {}): AsyncGenerator<RunEvent> {
  const { signal, fetch: fetchImpl = fetch, onConnection } = options;
  const retryDelays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let lastSeq = options.afterSeq ?? 0;
  let failures = 0;
  let finished = false;

  for (;;) {
    signal?.throwIfAborted();
    let lastProblem = t('runEvents.dropped');
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastSeq > 0) headers['last-event-id'] = String(lastSeq);
      const response = await fetchImpl(url, { headers, signal, cache: 'no-store', credentials: 'same-origin' });
      if (!response.ok || !response.body) {
        const message = await errorMessage(response);
        if (PERMANENT_STATUSES.has(response.status)) throw new RunEventsError(response.status, message);
        lastProblem = message;
      } else {
        onConnection?.('open');
        for await (const message of readSse(response.body)) {
          if (message.data === '[DONE]') return;
          const seq = Number(message.id);
          if (!Number.isSafeInteger(seq) || seq <= lastSeq) continue;
          lastSeq = seq;
          failures = 0;
          const chunk = parseChunk(message.data);
          if (!chunk) continue;
          if (chunk.type === 'finish') finished = true;
          yield { seq, chunk };
        }
      }
    } catch (error) {
      if (signal?.aborted || error instanceof RunEventsError) throw error;
      lastProblem = error instanceof Error && error.message ? error.message : lastProblem;
    }
    // The server closes right after `finish`; only `[DONE]` may have been lost. Reconnecting now
    // would ask an ended run for events past its end, so the stream is complete as it is.
    if (finished) return;
    failures++;
    if (failures >= maxAttempts) {
      throw new RunEventsError(0, t('runEvents.lost', { problem: lastProblem }));
    }
    onConnection?.('reconnecting');
    await delay(retryDelays[Math.min(failures - 1, retryDelays.length - 1)] ?? 1000, signal);
  }
}

function parseChunk(data: string): RunChunk | undefined {
  try {
    const chunk = JSON.parse(data) as RunChunk;
    return chunk && typeof chunk === 'object' && typeof chunk.type === 'string' ? chunk : undefined;
  } catch {
    return undefined;
  }
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string' && body.error.message) return body.error.message;
  } catch {
    // Not the API's JSON error body: fall through to the status line.
  }
  return `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
