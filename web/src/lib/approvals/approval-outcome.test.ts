import { describe, expect, it } from 'vitest';
import { describeDecider, describeInputIssue, formatTimeLeft, outcomeOfApproval, outcomeOfResponse, parseEditedInput, reasonToShow } from './approval-outcome.ts';
import { approvalsByToolCall } from './approval-parts.ts';
import type { Approval } from './types.ts';

const row: Approval = {
  id: 'approval_1',
  runId: 'run_1',
  userId: 'user_1',
  toolCallId: 'call_1',
  toolId: 'tool_1',
  toolName: 'order',
  inputHash: 'hash',
  input: { url: 'http://x/a' },
  editedInput: null,
  status: 'pending',
  reason: null,
  remember: false,
  expiresAt: '2030-01-01T00:00:00.000Z',
  decidedBy: null,
  decidedAt: null,
  createdAt: '2029-12-31T23:55:00.000Z',
};

describe('approval outcome', () => {
  it('reads a decided row and leaves a pending one undecided', () => {
    expect(outcomeOfApproval(row)).toBeUndefined();
    expect(outcomeOfApproval({ ...row, status: 'approved', editedInput: { url: 'http://x/b' }, decidedBy: 'user_1', decidedAt: '2030-01-01T00:00:00.000Z', remember: true })).toEqual({
      status: 'approved',
      reason: undefined,
      decidedBy: 'user_1',
      decidedAt: '2030-01-01T00:00:00.000Z',
      editedInput: { url: 'http://x/b' },
      remember: true,
    });
  });

  it('reads a run\'s response part, "for this session" included only when it says so', () => {
    const response = { approvalId: 'approval_1', toolCallId: 'call_1', status: 'approved' as const, decidedBy: 'user_1' };
    expect(outcomeOfResponse({ ...response, remember: true })).toMatchObject({ status: 'approved', decidedBy: 'user_1', remember: true });
    // An older part without the flag must not override the card's own "remember" when merged over it.
    expect(Object.hasOwn(outcomeOfResponse(response), 'remember')).toBe(false);
  });

  it('shows a reason unless it only repeats "expired"', () => {
    expect(reasonToShow({ status: 'denied', reason: ' budget frozen ' })).toBe('budget frozen');
    expect(reasonToShow({ status: 'expired', reason: 'expired' })).toBeUndefined();
    expect(reasonToShow({ status: 'expired', reason: 'run cancelled' })).toBe('run cancelled');
    expect(reasonToShow({ status: 'denied' })).toBeUndefined();
  });

  it('names the decider', () => {
    expect(describeDecider('user_1', 'user_1')).toBe('you');
    expect(describeDecider('user_2', 'user_1', new Map([['user_2', 'Ada']]))).toBe('Ada');
    expect(describeDecider('user_2', 'user_1')).toBe('another user');
    expect(describeDecider(undefined, 'user_1')).toBeUndefined();
  });

  it('formats the time left', () => {
    expect(formatTimeLeft(299_100)).toBe('5:00');
    expect(formatTimeLeft(65_000)).toBe('1:05');
    expect(formatTimeLeft(-5)).toBe('0:00');
    expect(formatTimeLeft(2 * 3600_000 + 5 * 60_000)).toBe('2 h 5 min');
    expect(formatTimeLeft(3600_000)).toBe('1 h');
  });

  it('parses edited input and describes schema issues without the input prefix', () => {
    expect(parseEditedInput('{"url":"http://x"}')).toEqual({ ok: true, value: { url: 'http://x' } });
    expect(parseEditedInput('  ')).toEqual({ ok: false, error: 'Enter the input as JSON.' });
    const broken = parseEditedInput('{"url":');
    expect(broken.ok).toBe(false);
    expect(describeInputIssue({ path: ['input', 'url'], message: 'Invalid URL' })).toBe('url: Invalid URL');
    expect(describeInputIssue({ path: ['input'], message: 'Expected object' })).toBe('Expected object');
  });
});

describe('approvalsByToolCall', () => {
  it('pairs requests with their responses by tool call', () => {
    const request = { approvalId: 'a1', toolCallId: 'c1', toolName: 'order', input: {}, expiresAt: '2030-01-01T00:00:00.000Z' };
    const parts = [
      { type: 'tool-order', toolCallId: 'c1' },
      { type: 'data-approval-request', data: request },
      { type: 'data-approval-request', data: { ...request, approvalId: 'a2', toolCallId: 'c2' } },
      { type: 'data-approval-response', data: { approvalId: 'a1', toolCallId: 'c1', status: 'denied', reason: 'no' } },
    ];
    const approvals = approvalsByToolCall(parts);
    expect(approvals.get('c1')).toEqual({ request, response: { approvalId: 'a1', toolCallId: 'c1', status: 'denied', reason: 'no' } });
    expect(approvals.get('c2')?.response).toBeUndefined();
  });
});
