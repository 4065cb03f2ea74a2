/**
 * The approvals API's shapes as the browser reads them (`GET /api/approvals`, `POST /api/approvals/:id`).
 * The stream's `data-approval-*` parts are in `#lib/chat/types.ts`.
 */

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** One approval row: a tool call that waited (or waits) for a human. Dates are ISO strings. */
export type Approval = {
  id: string;
  runId: string;
  userId: string;
  toolCallId: string;
  toolId: string | null;
  toolName: string;
  /** The input the model asked for. */
  input: unknown;
  /** The input the approver ran the tool with instead, when they edited it. */
  editedInput: unknown;
  status: ApprovalStatus;
  reason: string | null;
  /** Approved for the rest of the chat session ("Always allow in this session"). */
  remember: boolean;
  expiresAt: string;
  /** The user id of whoever decided; null while pending and for an expired approval. */
  decidedBy: string | null;
  decidedAt: string | null;
  createdAt: string;
};

/** The body of `POST /api/approvals/:id`. */
export type ApprovalDecisionBody = {
  decision: 'approve' | 'deny';
  reason?: string;
  /** Approve with this input instead of the model's; the API validates it against the tool's input schema. */
  input?: unknown;
  remember?: 'session';
};

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
export type ApprovalRequest = {
  approvalId: string;
  toolName: string;
  input: unknown;
  expiresAt: string;
};
