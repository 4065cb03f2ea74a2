import type { RunChunk } from '@agentq/shared/events';
import { describe, expect, it } from 'vitest';
import { createSourceNumbering } from './source-numbering';

const output = (indexes: number[]): RunChunk =>
  ({ type: 'tool-output-available', toolCallId: `call_${indexes.join('_')}`, output: { success: true, text: '', metadata: { durationMs: 1, sources: indexes.map((index) => ({ index, kind: 'web', title: 't', snippet: '' })) } } }) as RunChunk;

describe('createSourceNumbering', () => {
  it('numbers a fresh answer from 1 and continues across calls, parallel ones included', () => {
    let reads = 0;
    const numbering = createSourceNumbering(() => (reads++, []));
    expect(reads).toBe(0);
    expect(numbering.reserve(3)).toBe(1);
    expect(numbering.reserve(2)).toBe(4);
    expect(numbering.reserve(1)).toBe(6);
    // The stored outputs are read once, on the first reserve.
    expect(reads).toBe(1);
  });

  it("continues after the sources a resumed run's stream already shows, and after results it is about to replay", () => {
    const chunks: RunChunk[] = [{ type: 'text-delta', id: 't', delta: 'x' } as RunChunk, output([1, 2]), output([3])];
    expect(createSourceNumbering(() => chunks).reserve(2)).toBe(4);

    const replaying = createSourceNumbering(() => chunks);
    replaying.notice({ success: true, metadata: { durationMs: 1, sources: [{ index: 8, kind: 'web', title: 't', snippet: '' }] } });
    expect(replaying.reserve(1)).toBe(9);
    replaying.notice({ success: true, metadata: { durationMs: 1, sources: [{ index: 12, kind: 'web', title: 't', snippet: '' }] } });
    expect(replaying.reserve(1)).toBe(13);
  });
});
