/**
 * The chat API's shapes as the browser reads them. The run-event data parts mirror
 * `@agentq/shared/events` (web reaches the API over HTTP and keeps no dependency on shared).
 */
import type { UIMessage, UIMessageChunk } from 'ai';

/** `GET /api/chat-options`: what any signed-in user may pick for a run. */
export type ChatOptions = {
  models: { id: string; name: string; supportsReasoning: boolean }[];
  agents: { id: string; name: string; isDefault: boolean; modelId: string | null }[];
};

/** A row of `GET /api/sessions`. */
export type ChatSession = { id: string; title: string; titleSetByUser?: boolean; agentId: string | null; createdAt: string; updatedAt: string };

/** Where a message sits among its versions (regenerated answers, edited questions): "‹ 2/3 ›". */
export type MessageVersions = { index: number; count: number; ids: string[] };

/** One stored message: a user's text, or an assistant message in AI SDK UI parts. */
export type SessionMessage = {
  id: string;
  role: 'user' | 'assistant';
  parts: UIMessage['parts'];
  runId: string | null;
  parentId?: string | null;
  versions?: MessageVersions;
  createdAt: string;
};

/** `GET /api/sessions/:id`: the shown branch of the conversation. */
export type SessionDetail = ChatSession & {
  messages: SessionMessage[];
  activeRunId: string | null;
  /** The message the active run answers (a regenerated answer streams in place of what follows it). */
  activeRunReplyTo?: string | null;
  runs?: RunView[];
};

export type RunStatus = 'queued' | 'running' | 'awaiting_approval' | 'succeeded' | 'failed' | 'cancelled';

export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];

/** `GET /api/runs/:id` (only the fields the chat page reads). */
export type RunView = {
  id: string;
  status: RunStatus;
  finishReason: string | null;
  steps: number | null;
  hitStepLimit: boolean;
  error: string | null;
};

/** `POST /api/sessions/:id/runs` → 202. */
export type StartedRun = { runId: string; eventsUrl: string; status: RunStatus };

/** The `data` of a `data-run-status` chunk (transient: never part of the message). */
export type RunStatusData = {
  status: RunStatus;
  finishReason?: string;
  steps?: number;
  usage?: Record<string, unknown>;
  hitStepLimit?: boolean;
  error?: string;
  resumed?: boolean;
};

export type ApprovalRequestData = { approvalId: string; toolCallId: string; toolName: string; input: unknown; expiresAt: string };
export type ApprovalResponseData = {
  approvalId: string;
  toolCallId: string;
  status: 'approved' | 'denied' | 'expired';
  reason?: string;
  /** The user id of whoever decided (absent when the approval expired). */
  decidedBy?: string;
  /** The input the tool ran with instead of the model's, when the approver edited it. */
  editedInput?: unknown;
};

/** One chunk of a run's event stream: the AI SDK UI message stream plus our `data-*` parts. */
export type RunChunk = UIMessageChunk | { type: 'data-run-status'; id?: string; data: RunStatusData; transient?: boolean };

/** A chunk with its gap-free per-run sequence number (the SSE event id). */
export type RunEvent = { seq: number; chunk: RunChunk };

/** What a tool call's `output` holds (worker `toToolOutput`): the model's text plus what the UI shows. */
export type ToolOutput = {
  success: boolean;
  /** Exactly what the model received. */
  text?: string;
  data?: unknown;
  error?: string;
  durationMs?: number;
  metadata?: { statusCode?: number; responseSize?: number; [key: string]: unknown };
  replayed?: boolean;
  /** A crash interrupted the call and it was not repeated: it may or may not have taken effect. */
  interrupted?: boolean;
};
