/** "Where you're signed in": the signed-in user's browser sessions, and signing them out. */
import type { BrowserSessionView, RevokedSessions } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';

/** This user's sessions, the current one first (`current: true`). */
export async function listSignedInSessions(fetchImpl?: typeof fetch): Promise<BrowserSessionView[]> {
  return (await apiFetch<{ items: BrowserSessionView[] }>('/api/auth/sessions', { fetch: fetchImpl })).items;
}

/** Signs another session out at once. @throws {ApiError} 409 `current_session` for this one (log out instead). */
export function signOutSession(id: string): Promise<void> {
  return apiFetch(`/api/auth/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

export function signOutOtherSessions(): Promise<RevokedSessions> {
  return apiFetch('/api/auth/sessions/revoke-others', { method: 'POST' });
}
