import type { ApprovalRequestData, ApprovalResponseData } from '@agentq/shared/events';

/** A tool call's approval as the run's message records it: the request and, once decided, the response. */
export type ToolCallApproval = { request: ApprovalRequestData; response: ApprovalResponseData | undefined };

type PartLike = { type: string; data?: unknown };

/**
 * Pairs the message's `data-approval-request` and `data-approval-response` parts by tool call,
 * so the approval can be shown on the card of the call it is about rather than where it arrived.
 */
export function approvalsByToolCall(parts: readonly PartLike[]): Map<string, ToolCallApproval> {
  const approvals = new Map<string, ToolCallApproval>();
  for (const part of parts) {
    if (part.type !== 'data-approval-request') continue;
    const request = part.data as ApprovalRequestData;
    approvals.set(request.toolCallId, { request, response: undefined });
  }
  for (const part of parts) {
    if (part.type !== 'data-approval-response') continue;
    const response = part.data as ApprovalResponseData;
    const approval = approvals.get(response.toolCallId);
    if (approval?.request.approvalId === response.approvalId) approval.response = response;
  }
  return approvals;
}
