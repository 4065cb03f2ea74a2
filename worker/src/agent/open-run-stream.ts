import type { Run } from '@agentq/shared/services';
import { messageToChunks, survivesStepRetry, withoutRetriedAttempts, type RunChunk, type RunEvent, type RunStatusData } from '@agentq/shared/events';
import { lastRunEventSeq, readRunEvents, RunEventPublisher } from '@agentq/shared/run-stream';
import { abortable } from '@agentq/shared/abortable';
import type { WorkerDeps } from '../processor';
import { RunTimelineRecorder } from './run-timeline';

/** A run's event stream as this attempt continues it: publisher, the events so far and the timeline fed from them. */
export type RunStream = {
  publisher: RunEventPublisher;
  timeline: RunTimelineRecorder;
  emit: (chunk: RunChunk) => void;
  status: (data: RunStatusData) => void;
  /** The chunks the assistant message is built from: abandoned attempts already dropped. */
  chunks: () => RunChunk[];
  /**
   * The output the previous attempt published after the checkpoint, now dropped by `data-step-retry`
   * (empty when nothing was abandoned). The tool journal carries the part the model had completed
   * before its calls over into this attempt (tool-journal.ts).
   */
  abandoned: RunChunk[];
  /** Events were published before this attempt (a resume, not a first start). */
  resumed: boolean;
  /** Whether the stream already ended with `finish`. */
  finished: () => boolean;
  /**
   * Resolves once the call's `tool-input-available` was emitted and the stream is in Redis up to it:
   * a tool's effect never comes before the text and the call that announce it, which a worker
   * killed during the call would otherwise lose (the journal's resume carries only what was stored).
   * Rejects with the signal's reason when the run stops first.
   */
  callShown: (toolCallId: string, signal: AbortSignal) => Promise<void>;
};

const PAGE = 1000;

/**
 * What the job read of the stream beside its claim: the position (a first start's stream is new),
 * or every event (a later start continues the stream, so this is its position too).
 */
export type StreamReads = { lastSeq?: Promise<number>; events?: Promise<RunEvent[]> };

/** The run's stored events, all pages. */
export async function readAll(deps: WorkerDeps, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for (;;) {
    const page = await readRunEvents(deps.redis, deps.config.prefix, runId, events.at(-1)?.seq ?? 0, PAGE);
    events.push(...page);
    if (page.length < PAGE) return events;
  }
}

/**
 * Opens the run's stream where the last attempt left it. When that attempt published model output
 * after its last checkpoint (it died mid-step), the step runs again: a `data-step-retry` marker tells
 * every reader to drop the abandoned output, so the answer is never shown or stored twice.
 */
export async function openRunStream(deps: WorkerDeps, run: Run, attempt: number, prefetched: StreamReads = {}): Promise<RunStream> {
  const checkpoint = run.checkpoint;
  const timeline = new RunTimelineRecorder(checkpoint?.timeline);
  let events: { seq: number; chunk: RunChunk }[] = [];
  const readEarly = prefetched.events ? await prefetched.events : undefined;
  let lastSeq = readEarly ? (readEarly.at(-1)?.seq ?? 0) : await (prefetched.lastSeq ?? lastRunEventSeq(deps.redis, deps.config.prefix, run.id));
  if (checkpoint?.lastSeq && lastSeq < checkpoint.lastSeq) {
    // Redis lost the run's stream (restart without persistence): continue the numbering and the message from the checkpoint.
    events = messageToChunks(run.id, checkpoint.parts ?? []).map((chunk) => ({ seq: 0, chunk }));
    lastSeq = checkpoint.lastSeq;
  } else if (lastSeq > 0) {
    const stored = readEarly ?? (await readAll(deps, run.id));
    events = stored;
    timeline.replay(stored);
  }
  const publisher = new RunEventPublisher(deps.redis, deps.config.prefix, run.id, lastSeq, (event) => {
    events.push(event);
    timeline.apply(event);
  });
  /** Per tool call: whether its `tool-input-available` was emitted, and a promise that resolves when it is. */
  const calls = new Map<string, { shown: boolean; emitted: Promise<void>; show: () => void }>();
  const callOf = (toolCallId: string) => {
    let call = calls.get(toolCallId);
    if (!call) {
      let show = () => {};
      const emitted = new Promise<void>((resolve) => (show = resolve));
      calls.set(toolCallId, (call = { shown: false, emitted, show }));
    }
    return call;
  };
  const emit = (chunk: RunChunk) => {
    publisher.emit(chunk);
    if (chunk.type !== 'tool-input-available') return;
    const call = callOf(chunk.toolCallId);
    call.shown = true;
    call.show();
  };
  const callShown = async (toolCallId: string, signal: AbortSignal) => {
    const call = callOf(toolCallId);
    if (!call.shown) await abortable(call.emitted, signal);
    await publisher.flush();
  };
  const checkpointSeq = checkpoint?.lastSeq ?? 0;
  // Earlier abandoned attempts are already gone (withoutRetriedAttempts), so what a resumed attempt
  // carried over is seen once, not with the output it was carried from.
  const abandoned = withoutRetriedAttempts(events)
    .filter((event) => event.seq > checkpointSeq && !survivesStepRetry(event.chunk))
    .map((event) => event.chunk);
  const finished = () => events.at(-1)?.chunk.type === 'finish';
  const retried = abandoned.length > 0 && !finished();
  if (retried) emit({ type: 'data-step-retry', data: { discardAfterSeq: checkpointSeq, attempt }, transient: true });
  return {
    publisher,
    timeline,
    emit,
    status: (data) => emit({ type: 'data-run-status', data, transient: true }),
    chunks: () => withoutRetriedAttempts(events).map((event) => event.chunk),
    abandoned: retried ? abandoned : [],
    resumed: lastSeq > 0,
    finished,
    callShown,
  };
}
