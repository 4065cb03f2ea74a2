/** A run as its owner (or an admin) reads it: status, outcome, and the chat session it belongs to. */
import type { RunView } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { segment, type FetchOption } from '../api-routes.ts';

export type { RunStatus, RunView } from '@agentq/shared/api-types';

/** Where a run's event stream (SSE, resumable with Last-Event-ID) is served. */
export const runEventsUrl = (runId: string) => `/api/runs/${segment(runId)}/events`;

export function getRun(runId: string, options: FetchOption & { signal?: AbortSignal } = {}): Promise<RunView> {
  return apiFetch(`/api/runs/${segment(runId)}`, options);
}

export async function cancelRun(runId: string, options: FetchOption = {}): Promise<void> {
  await apiFetch(`/api/runs/${segment(runId)}/cancel`, { ...options, method: 'POST' });
}

/**
 * The chat session each run belongs to, for "Open chat" links. A run that cannot be read (gone,
 * or a standalone tool run) is simply left out.
 */
export async function findRunSessions(runIds: Iterable<string>, options: FetchOption = {}): Promise<Map<string, string>> {
  const ids = [...new Set(runIds)];
  const runs = await Promise.all(ids.map((runId) => getRun(runId, options).catch(() => undefined)));
  const sessions = new Map<string, string>();
  for (const [index, run] of runs.entries()) if (run?.sessionId) sessions.set(ids[index]!, run.sessionId);
  return sessions;
}
