/**
 * Shapes of the operators' dashboard API (`/api/admin/...`). The web keeps its own copies of
 * API types (it reaches the API over HTTP and does not depend on `shared`).
 */

export type QueueState = 'waiting' | 'active' | 'delayed' | 'parked' | 'failed' | 'completed' | 'prioritized' | 'waiting-children';

export type QueueSummary = { key: string; name: string; isPaused: boolean; counts: Record<QueueState, number> };

export type QueueThroughput = { key: string; name: string; completed: number[]; failed: number[] };

export type Throughput = { since: string; minutes: number; items: QueueThroughput[] };

export type WorkerProcess = {
  id: string;
  host: string;
  pid: number;
  concurrency: number;
  queues: string[];
  startedAt: string;
  lastSeenAt: string;
  uptimeMs: number;
  lastSeenMsAgo: number;
};

export type FailedJob = {
  queue: string;
  id: string;
  name: string;
  runId: string | null;
  failedReason: string;
  attemptsMade: number;
  attempts: number;
  createdAt: string;
  finishedAt: string | null;
  stack: string | null;
};

export type Overview = {
  queues: QueueSummary[];
  throughput: Throughput;
  workers: { items: WorkerProcess[]; connections: { queue: string; workers: number }[] };
  failedJobs: { items: FailedJob[]; total: number };
  at: string;
};

export type RunStatus = 'queued' | 'running' | 'awaiting_approval' | 'succeeded' | 'failed' | 'cancelled';
export const RUN_STATUSES: RunStatus[] = ['queued', 'running', 'awaiting_approval', 'succeeded', 'failed', 'cancelled'];
export const RUN_KINDS = ['chat', 'tool'] as const;

export type RunRow = {
  id: string;
  kind: 'chat' | 'tool';
  status: RunStatus;
  userId: string;
  userEmail: string;
  agentName: string | null;
  modelName: string | null;
  toolName: string | null;
  sessionId: string | null;
  steps: number;
  tokens: number | null;
  usage: Record<string, number | undefined> | null;
  finishReason: string | null;
  hitStepLimit: boolean;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number;
};

export type RunPage = { items: RunRow[]; total: number; nextCursor: string | null };

// The timeline is recorded by the worker; its shape is defined once, in the events package web may import.
export type { RunTimeline, TimelineApproval, TimelineStep, TimelineToolCall } from '@agentq/shared/events';
import type { RunTimeline } from '@agentq/shared/events';

export type ToolLogRow = {
  id: number;
  toolId: string;
  toolSlug: string;
  toolCallId: string | null;
  status: 'success' | 'error' | 'timeout';
  durationMs: number;
  errorMessage: string | null;
  input: unknown;
  output: string | null;
  createdAt: string;
};

export type ApprovalRow = {
  id: string;
  toolName: string;
  toolCallId: string;
  status: 'pending' | 'approved' | 'denied' | 'expired';
  decidedBy: string | null;
  reason: string | null;
  createdAt: string;
  decidedAt: string | null;
  waitMs: number | null;
};

export type RunDetail = {
  run: RunRow & { result: unknown; options: Record<string, unknown> };
  timeline: RunTimeline | null;
  toolLogs: ToolLogRow[];
  approvals: ApprovalRow[];
};

/** `1.2 s`, `850 ms`, `3 min 20 s`, `2 h 5 min`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** A locale date and time, or `—`. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** Status words for people: `awaiting_approval` → `awaiting approval`. */
export function statusLabel(status: string): string {
  return status.replaceAll('_', ' ');
}
