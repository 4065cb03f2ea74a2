/**
 * A chat run's per-step timeline, recorded by the worker from the run's own events (their `at`
 * times) and kept in the run checkpoint, so it outlives the run's 24 h event stream.
 * All times are epoch milliseconds.
 */
export type RunTimeline = {
  /** Sequence number of the last event applied; replays skip what is already in. */
  lastSeq: number;
  steps: TimelineStep[];
};

export type TimelineUsage = { inputTokens?: number; outputTokens?: number; totalTokens?: number; reasoningTokens?: number };

/** One model step (AI SDK `start-step` … `finish-step`). */
export type TimelineStep = {
  /** 1-based, in the order steps started. */
  step: number;
  /** When the model request went out (for a step another worker began: when the provider started answering). */
  startedAt: number;
  /** First output of the model (text, reasoning or a tool call). */
  firstOutputAt?: number;
  /** Last output of the model; tool execution and approvals come after it. */
  lastOutputAt?: number;
  endedAt?: number;
  /** From step start to the model's last output (or the step end when it wrote nothing). */
  modelLatencyMs?: number;
  /** From step start to the model's first output. */
  timeToFirstOutputMs?: number;
  finishReason?: string;
  usage?: TimelineUsage;
  /** The worker stopped before the step ended (crash, restart); a later step continued the run. */
  interrupted?: boolean;
  toolCalls: TimelineToolCall[];
  approvals: TimelineApproval[];
};

/** `interrupted`: a crash cut the call short and it is non-idempotent, so it was not repeated (it may or may not have taken effect). */
export type TimelineToolCallStatus = 'running' | 'awaiting_approval' | 'success' | 'error' | 'denied' | 'interrupted';

export type TimelineToolCall = {
  toolCallId: string;
  toolName: string;
  /** When the model finished writing the call. */
  startedAt: number;
  /** When its result (or error, or denial) was published. */
  endedAt?: number;
  /** The tool's own execution time when it reported one, else endedAt − startedAt. */
  durationMs?: number;
  status: TimelineToolCallStatus;
  error?: string;
};

export type TimelineApproval = {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  requestedAt: number;
  resolvedAt?: number;
  /** How long the run waited for the decision (or for the approval to expire). */
  waitMs?: number;
  status: 'pending' | 'approved' | 'denied' | 'expired';
};

/** An empty timeline. */
export function emptyRunTimeline(): RunTimeline {
  return { lastSeq: 0, steps: [] };
}
