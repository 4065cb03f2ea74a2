import { z } from 'zod';
import type { StepRetryData } from './step-retry';

/** Run lifecycle as seen by clients; the last one a run emits has a terminal status. */
export const runStatusDataSchema = z.object({
  status: z.enum(['queued', 'running', 'awaiting_approval', 'succeeded', 'failed', 'cancelled']),
  finishReason: z.string().optional(),
  steps: z.number().int().optional(),
  usage: z.record(z.string(), z.unknown()).optional(),
  /** The step limit was spent on tool calls; a final tools-off step produced the answer. */
  hitStepLimit: z.boolean().optional(),
  error: z.string().optional(),
  /** Set when a worker picked the run up again after a crash or a parked approval. */
  resumed: z.boolean().optional(),
});
export type RunStatusData = z.infer<typeof runStatusDataSchema>;

export const approvalRequestDataSchema = z.object({
  approvalId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  expiresAt: z.string(),
});
export type ApprovalRequestData = z.infer<typeof approvalRequestDataSchema>;

export const approvalResponseDataSchema = z.object({
  approvalId: z.string(),
  toolCallId: z.string(),
  status: z.enum(['approved', 'denied', 'expired']),
  reason: z.string().optional(),
  decidedBy: z.string().optional(),
  editedInput: z.unknown().optional(),
  /** Approved "for this session": later calls of the tool in the session run without asking. */
  remember: z.boolean().optional(),
});
export type ApprovalResponseData = z.infer<typeof approvalResponseDataSchema>;

/**
 * The model named the run's chat (its first question's run, when the chat's model has "Names chats"
 * on): the session's title as stored, sent before the run's final status so a follower can show it.
 */
export const sessionTitleDataSchema = z.object({
  sessionId: z.string(),
  title: z.string(),
});
export type SessionTitleData = z.infer<typeof sessionTitleDataSchema>;

/** At most this many follow-up questions, each at most FOLLOW_UP_MAX_CHARS long. */
export const FOLLOW_UPS_MAX = 3;
export const FOLLOW_UP_MAX_CHARS = 200;

/**
 * Questions the user might ask next, suggested by the run's model after its answer (when the model has
 * "Suggests follow-ups" on): sent before the run's final status and stored as a part of the answer, so
 * a reload shows them too. The chat offers the last answer's.
 */
export const followUpsDataSchema = z.object({
  questions: z.array(z.string().min(1).max(FOLLOW_UP_MAX_CHARS)).min(1).max(FOLLOW_UPS_MAX),
});
export type FollowUpsData = z.infer<typeof followUpsDataSchema>;

/** Our additions to the AI SDK UI message stream: `data-<noun>-<verb>` parts. */
export type RunDataChunk =
  | { type: 'data-run-status'; id?: string; data: RunStatusData; transient?: boolean }
  | { type: 'data-approval-request'; id?: string; data: ApprovalRequestData }
  | { type: 'data-approval-response'; id?: string; data: ApprovalResponseData }
  | { type: 'data-step-retry'; id?: string; data: StepRetryData; transient?: boolean }
  | { type: 'data-session-title'; id?: string; data: SessionTitleData; transient?: boolean }
  | { type: 'data-follow-ups'; id?: string; data: FollowUpsData };

export const TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled'] as const;
