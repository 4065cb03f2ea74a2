import { describe, expect, it } from 'vitest';
import type { RunChunk } from './run-event';
import { withoutRetriedAttempts } from './step-retry';

const event = (seq: number, chunk: RunChunk) => ({ seq, chunk });

describe('withoutRetriedAttempts', () => {
  it("drops the abandoned attempt's parts, keeps bookkeeping and what came before and after", () => {
    const events = [
      event(1, { type: 'start', messageId: 'run_1' }),
      event(2, { type: 'data-run-status', data: { status: 'running' }, transient: true }),
      event(3, { type: 'text-start', id: 't0' }),
      event(4, { type: 'text-delta', id: 't0', delta: 'Hello' }),
      event(5, { type: 'text-end', id: 't0' }),
      // The crash: step 2 had started writing when the worker died; the checkpoint was at seq 5.
      event(6, { type: 'text-start', id: 't1' }),
      event(7, { type: 'text-delta', id: 't1', delta: 'The answer is' }),
      event(8, { type: 'data-run-status', data: { status: 'running', resumed: true }, transient: true }),
      event(9, { type: 'data-step-retry', data: { discardAfterSeq: 5, attempt: 2 }, transient: true }),
      event(10, { type: 'text-start', id: 't1' }),
      event(11, { type: 'text-delta', id: 't1', delta: 'The answer is 42.' }),
      event(12, { type: 'text-end', id: 't1' }),
    ];
    expect(withoutRetriedAttempts(events).map((kept) => kept.seq)).toEqual([1, 2, 3, 4, 5, 8, 9, 10, 11, 12]);
  });

  it('changes nothing without a retry', () => {
    const events = [event(1, { type: 'start' }), event(2, { type: 'text-start', id: 'a' })];
    expect(withoutRetriedAttempts(events)).toEqual(events);
  });
});
