import type { RunChunk, RunEvent } from '@agentq/shared/events';
import { describe, expect, it } from 'vitest';
import { RunTimelineRecorder } from './run-timeline';

let seq = 0;
const event = (at: number, chunk: RunChunk): RunEvent => ({ runId: 'run_1', seq: ++seq, at, chunk });

describe('RunTimelineRecorder', () => {
  it('times model output, tool calls and approval waits per step, with usage from onStepEnd', () => {
    seq = 0;
    const recorder = new RunTimelineRecorder();
    // The request goes out at 900; the SDK emits start-step once the provider answers.
    recorder.stepStarting(900);
    recorder.apply(event(1000, { type: 'start-step' }));
    // onStepEnd can arrive before the step's remaining events were published.
    recorder.apply(event(1150, { type: 'reasoning-start', id: 'r1' }));
    recorder.apply(event(1300, { type: 'tool-input-available', toolCallId: 'call_1', toolName: 'calc', input: { expression: '1+1' } }));
    recorder.stepEnded({ finishReason: 'tool-calls', usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25, outputTokenDetails: { reasoningTokens: 2 } } });
    recorder.apply(event(1420, { type: 'tool-output-available', toolCallId: 'call_1', output: { success: true, text: '2', durationMs: 110 } }));
    recorder.apply(event(1430, { type: 'finish-step' }));

    recorder.apply(event(1500, { type: 'start-step' }));
    recorder.apply(event(1700, { type: 'tool-input-available', toolCallId: 'call_2', toolName: 'order', input: {} }));
    recorder.apply(event(1701, { type: 'tool-approval-request', approvalId: 'sdk_1', toolCallId: 'call_2' }));
    recorder.apply(event(1720, { type: 'finish-step' }));
    recorder.stepEnded({ finishReason: 'tool-calls', usage: { inputTokens: 40, outputTokens: 8, totalTokens: 48 } });
    recorder.apply(event(1750, { type: 'data-approval-request', id: 'appr_1', data: { approvalId: 'appr_1', toolCallId: 'call_2', toolName: 'order', input: {}, expiresAt: '' } }));

    // The job parks; a new job resumes from the checkpoint's timeline.
    const resumed = new RunTimelineRecorder(recorder.snapshot());
    resumed.apply(event(9750, { type: 'data-approval-response', id: 'appr_1-response', data: { approvalId: 'appr_1', toolCallId: 'call_2', status: 'approved' } }));
    resumed.apply(event(9800, { type: 'tool-output-available', toolCallId: 'call_2', output: { success: false, text: 'boom', error: 'HTTP 500', durationMs: 40 } }));
    resumed.apply(event(9810, { type: 'start-step' }));
    resumed.stepStarting(9805);
    resumed.apply(event(10_100, { type: 'text-start', id: 't1' }));
    resumed.apply(event(10_400, { type: 'text-end', id: 't1' }));
    resumed.apply(event(10_410, { type: 'finish-step' }));
    resumed.stepEnded({ finishReason: 'stop', usage: { inputTokens: 60, outputTokens: 12, totalTokens: 72 } });

    const { steps, lastSeq } = resumed.snapshot();
    expect(lastSeq).toBe(seq);
    expect(steps).toHaveLength(3);
    expect(steps[0]).toMatchObject({
      step: 1,
      startedAt: 900,
      endedAt: 1430,
      timeToFirstOutputMs: 250,
      modelLatencyMs: 400,
      finishReason: 'tool-calls',
      usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25, reasoningTokens: 2 },
      toolCalls: [{ toolCallId: 'call_1', toolName: 'calc', startedAt: 1300, endedAt: 1420, durationMs: 110, status: 'success' }],
    });
    expect(steps[1]!.toolCalls[0]).toMatchObject({ toolCallId: 'call_2', status: 'error', error: 'HTTP 500', durationMs: 40 });
    expect(steps[1]!.approvals).toEqual([{ approvalId: 'appr_1', toolCallId: 'call_2', toolName: 'order', requestedAt: 1750, resolvedAt: 9750, waitMs: 8000, status: 'approved' }]);
    expect(steps[1]!.usage?.totalTokens).toBe(48);
    expect(steps[2]).toMatchObject({ step: 3, startedAt: 9805, modelLatencyMs: 595, timeToFirstOutputMs: 295, finishReason: 'stop', usage: { totalTokens: 72 } });
  });

  it('skips events it already has and marks a step a crash cut short', () => {
    seq = 0;
    const first = new RunTimelineRecorder();
    const stored = [event(100, { type: 'start-step' }), event(200, { type: 'text-start', id: 't' })];
    for (const stored_ of stored) first.apply(stored_);
    // The next worker replays the whole stream over the checkpoint's timeline, then runs a new step.
    const next = new RunTimelineRecorder(first.snapshot());
    next.replay([...stored, event(300, { type: 'text-delta', id: 't', delta: 'hi' })]);
    next.apply(event(5000, { type: 'start-step' }));
    next.stepEnded({ finishReason: 'stop' });
    next.apply(event(5200, { type: 'finish-step' }));
    const { steps } = next.snapshot();
    expect(steps).toHaveLength(2);
    expect(steps[0]).toMatchObject({ interrupted: true, lastOutputAt: 300 });
    expect(steps[0]!.finishReason).toBeUndefined();
    // The step end belongs to the step this worker started, not the replayed one.
    expect(steps[1]).toMatchObject({ step: 2, finishReason: 'stop', endedAt: 5200, modelLatencyMs: 200 });
  });

  it('ignores events without a time (published before timestamps existed)', () => {
    const recorder = new RunTimelineRecorder();
    recorder.apply({ runId: 'run_1', seq: 1, chunk: { type: 'start-step' } });
    expect(recorder.snapshot()).toEqual({ lastSeq: 1, steps: [] });
  });
});
