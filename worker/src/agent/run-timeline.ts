import { emptyRunTimeline, type ApprovalRequestData, type ApprovalResponseData, type RunEvent, type RunTimeline, type TimelineStep, type TimelineUsage, type ToolOutput } from '@agentq/shared/events';

/** Chunks the model itself produces; tool results, approvals and our data parts are not model output. */
const MODEL_OUTPUT = new Set([
  'text-start',
  'text-delta',
  'text-end',
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
  'tool-input-start',
  'tool-input-delta',
  'tool-input-available',
  'tool-input-error',
  'source-url',
  'source-document',
  'file',
]);

type StepEnd = { finishReason?: string; usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number; outputTokenDetails?: { reasoningTokens?: number } } };

/**
 * Builds a run's timeline from its events as the worker publishes them. Two things are not in the
 * event stream: when the model request went out (the SDK emits `start-step` only once the provider
 * answers) and per-step usage. The AI SDK's onStepStart and onStepEnd supply them through
 * `stepStarting` and `stepEnded`; the n-th call of each belongs to the n-th step this recorder saw
 * start live, whichever arrives first.
 */
export class RunTimelineRecorder {
  private readonly state: RunTimeline;
  private readonly startedLive: TimelineStep[] = [];
  private readonly requests: number[] = [];
  private readonly ends: StepEnd[] = [];

  constructor(initial?: RunTimeline) {
    this.state = initial ? structuredClone(initial) : emptyRunTimeline();
  }

  /** Events another worker published after the checkpoint's timeline was saved (crash recovery). */
  replay(events: RunEvent[]): void {
    for (const event of events) this.apply(event, false);
  }

  /** Applies one published event; events without a time or already applied are skipped. */
  apply(event: RunEvent, live = true): void {
    if (event.seq <= this.state.lastSeq) return;
    this.state.lastSeq = event.seq;
    const at = event.at;
    if (at === undefined) return;
    const chunk = event.chunk;
    const steps = this.state.steps;
    const current = steps.at(-1);
    const open = current && current.endedAt === undefined && !current.interrupted ? current : undefined;

    if (chunk.type === 'start-step') {
      if (open) open.interrupted = true;
      const step: TimelineStep = { step: steps.length + 1, startedAt: at, toolCalls: [], approvals: [] };
      steps.push(step);
      if (live) {
        this.startedLive.push(step);
        this.pairLiveSteps();
      }
      return;
    }
    if (MODEL_OUTPUT.has(chunk.type) && open) {
      open.firstOutputAt ??= at;
      open.lastOutputAt = at;
      derive(open);
    }
    switch (chunk.type) {
      case 'finish-step': {
        if (!open) return;
        open.endedAt = at;
        derive(open);
        return;
      }
      case 'tool-input-available': {
        // A resumed run shows a journaled call again: it is still the same call.
        if (!open || this.findCall(chunk.toolCallId)) return;
        open.toolCalls.push({ toolCallId: chunk.toolCallId, toolName: chunk.toolName, startedAt: at, status: 'running' });
        return;
      }
      case 'tool-approval-request': {
        const call = this.findCall(chunk.toolCallId);
        if (call) call.status = 'awaiting_approval';
        return;
      }
      case 'tool-output-available': {
        const call = this.findCall(chunk.toolCallId);
        if (!call) return;
        const output = chunk.output as Partial<ToolOutput> | undefined;
        call.endedAt = at;
        // A non-idempotent call a crash interrupted was not repeated: neither a success nor an ordinary failure.
        call.status = output?.interrupted ? 'interrupted' : output?.success === false ? 'error' : 'success';
        if (output?.success === false && output.error) call.error = String(output.error);
        call.durationMs = typeof output?.durationMs === 'number' ? Math.round(output.durationMs) : at - call.startedAt;
        return;
      }
      case 'tool-output-error': {
        const call = this.findCall(chunk.toolCallId);
        if (!call) return;
        Object.assign(call, { endedAt: at, durationMs: at - call.startedAt, status: 'error', error: chunk.errorText });
        return;
      }
      case 'tool-output-denied': {
        const call = this.findCall(chunk.toolCallId);
        if (call) Object.assign(call, { endedAt: at, status: 'denied' });
        return;
      }
      case 'data-approval-request': {
        // The UI chunk union also has a generic `data-${string}` part, so the payload needs naming.
        const data = chunk.data as ApprovalRequestData;
        const step = this.stepOfCall(data.toolCallId) ?? current;
        step?.approvals.push({ approvalId: data.approvalId, toolCallId: data.toolCallId, toolName: data.toolName, requestedAt: at, status: 'pending' });
        return;
      }
      case 'data-approval-response': {
        const data = chunk.data as ApprovalResponseData;
        for (const step of steps) {
          const approval = step.approvals.find((entry) => entry.approvalId === data.approvalId);
          if (!approval) continue;
          Object.assign(approval, { resolvedAt: at, waitMs: at - approval.requestedAt, status: data.status });
        }
        return;
      }
      default:
        return;
    }
  }

  /** The AI SDK's onStepStart: the next step's model request is going out now. */
  stepStarting(at = Date.now()): void {
    this.requests.push(at);
    this.pairLiveSteps();
  }

  /** The AI SDK's onStepEnd for the next step started live: its finish reason and token usage. */
  stepEnded(end: StepEnd): void {
    this.ends.push(end);
    this.pairLiveSteps();
  }

  /** A copy to store in the checkpoint. */
  snapshot(): RunTimeline {
    return structuredClone(this.state);
  }

  private pairLiveSteps() {
    this.startedLive.forEach((step, index) => {
      const requestedAt = this.requests[index];
      if (requestedAt !== undefined && requestedAt < step.startedAt) {
        step.startedAt = requestedAt;
        derive(step);
      }
      const end = this.ends[index];
      if (end && step.finishReason === undefined && step.usage === undefined) {
        step.finishReason = end.finishReason;
        step.usage = toUsage(end.usage);
      }
    });
  }

  private findCall(toolCallId: string) {
    for (let index = this.state.steps.length - 1; index >= 0; index--) {
      const call = this.state.steps[index]!.toolCalls.find((entry) => entry.toolCallId === toolCallId);
      if (call) return call;
    }
    return undefined;
  }

  private stepOfCall(toolCallId: string) {
    return this.state.steps.findLast((step) => step.toolCalls.some((call) => call.toolCallId === toolCallId));
  }
}

/** Latencies measured from the step's start (its model request when known). */
function derive(step: TimelineStep) {
  if (step.firstOutputAt !== undefined) step.timeToFirstOutputMs = step.firstOutputAt - step.startedAt;
  if (step.endedAt !== undefined) step.modelLatencyMs = (step.lastOutputAt ?? step.endedAt) - step.startedAt;
}

function toUsage(usage: StepEnd['usage']): TimelineUsage | undefined {
  if (!usage) return undefined;
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.totalTokens,
    reasoningTokens: usage.outputTokenDetails?.reasoningTokens,
  };
}
