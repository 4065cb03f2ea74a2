import { describe, expect, it } from 'vitest';
import { summarizeChunk } from './event-summary.ts';

describe('summarizeChunk', () => {
  it('says what each kind of event carries, in one line', () => {
    expect(summarizeChunk(3, { type: 'text-delta', id: 't', delta: 'Hello\nworld' })).toEqual({ seq: 3, type: 'text-delta', summary: '“Hello world”', tone: undefined });
    expect(summarizeChunk(4, { type: 'tool-input-available', toolCallId: 'c', toolName: 'calc', input: { expression: '6*7' } }).summary).toBe('calc {"expression":"6*7"}');
    expect(summarizeChunk(5, { type: 'tool-output-available', toolCallId: 'c', output: { success: true, text: '42', durationMs: 12.4 } })).toMatchObject({ summary: 'ok (12 ms): 42', tone: 'success' });
    expect(summarizeChunk(6, { type: 'data-run-status', data: { status: 'failed', error: 'boom' } })).toMatchObject({ summary: 'failed · boom', tone: 'error' });
    expect(summarizeChunk(7, { type: 'data-approval-response', data: { status: 'approved', decidedBy: 'ann@x' } }).summary).toBe('approved by ann@x');
    expect(summarizeChunk(8, { type: 'data-session-title', data: { sessionId: 's', title: 'Planning A Lisbon Offsite' } }).summary).toBe('Planning A Lisbon Offsite');
    expect(summarizeChunk(8, { type: 'start-step' }).summary).toBe('');
  });
});
