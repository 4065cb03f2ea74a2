import type { RunChunk } from './run-event';

/**
 * `data-step-retry`: a worker resumed a run whose last model step was cut short (crash, handover)
 * and runs it again. Every event after `discardAfterSeq` belongs to the abandoned attempt: clients
 * and the persisted message drop it, so no answer is ever shown or stored twice.
 */
export type StepRetryData = { discardAfterSeq: number; attempt: number };

/** Chunks an abandoned attempt cannot take back: the stream's start and run/approval bookkeeping. */
const KEPT_TYPES = new Set(['start', 'data-run-status', 'data-approval-request', 'data-approval-response', 'data-step-retry', 'data-session-title']);

/** Whether the abandoned attempt's chunk stays (the stream's own bookkeeping) or goes. */
export function survivesStepRetry(chunk: RunChunk): boolean {
  return KEPT_TYPES.has(chunk.type);
}

/**
 * A run's events with every abandoned attempt removed: each `data-step-retry` drops the events
 * after its `discardAfterSeq` (up to the marker) except bookkeeping. What both the worker (the
 * persisted message) and a client (the live message) reduce.
 * @example const kept = withoutRetriedAttempts(events).map((event) => event.chunk);
 */
export function withoutRetriedAttempts<T extends { seq: number; chunk: RunChunk }>(events: readonly T[]): T[] {
  const kept: T[] = [];
  for (const event of events) {
    if (event.chunk.type === 'data-step-retry') {
      const { discardAfterSeq } = (event.chunk as { data: StepRetryData }).data;
      for (let index = kept.length - 1; index >= 0; index--) {
        const candidate = kept[index]!;
        if (candidate.seq > discardAfterSeq && !survivesStepRetry(candidate.chunk)) kept.splice(index, 1);
      }
    }
    kept.push(event);
  }
  return kept;
}
