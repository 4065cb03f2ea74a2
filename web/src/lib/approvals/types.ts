/**
 * Approvals as the browser reads them: the API's shapes from @agentq/shared/api-types, and what an
 * approval card shows, which may come from the stream's `data-approval-*` parts or from a row.
 */
import type { ApprovalDecision, ApprovalStatus, ApprovalView } from '@agentq/shared/api-types';

export type { ApprovalStatus } from '@agentq/shared/api-types';

/** One approval row: a tool call that waited (or waits) for a human. Dates are ISO strings. */
export type Approval = ApprovalView;

/** The body of `POST /api/approvals/:id`. */
export type ApprovalDecisionBody = ApprovalDecision;

/** What became of an approval, from the stream's `data-approval-response` or from the API's row. */
export type ApprovalOutcome = {
  status: Exclude<ApprovalStatus, 'pending'>;
  reason?: string;
  decidedBy?: string;
  decidedAt?: string;
  editedInput?: unknown;
  remember?: boolean;
};

/** What an approval card needs to ask for a decision (the stream's `data-approval-request`, or a row). */
export type ApprovalRequest = Pick<Approval, 'toolName' | 'input' | 'expiresAt'> & { approvalId: string };
