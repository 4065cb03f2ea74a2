/** Formatting and filter values for the operators' dashboard; its API and types are in `operations-api.ts`. */
import type { RunStatus } from '@agentq/shared/api-types';
import { formatDateTime, t } from '../i18n/i18n.svelte.ts';

export const RUN_STATUSES = ['queued', 'running', 'awaiting_approval', 'succeeded', 'failed', 'cancelled'] as const satisfies readonly RunStatus[];
export const RUN_KINDS = ['chat', 'tool'] as const;

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
  return Number.isNaN(new Date(iso).getTime()) ? iso : formatDateTime(iso);
}

/** Status words for people in the UI's language: `awaiting_approval` → `awaiting approval` (等待审批). */
export function statusLabel(status: string): string {
  return (RUN_STATUSES as readonly string[]).includes(status) ? t(`runStatus.${status as RunStatus}`) : status.replaceAll('_', ' ');
}

/** `chat` / `tool` (对话 / 工具). */
export function kindLabel(kind: string): string {
  return (RUN_KINDS as readonly string[]).includes(kind) ? t(`runKind.${kind as (typeof RUN_KINDS)[number]}`) : kind;
}
