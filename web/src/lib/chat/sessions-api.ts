/**
 * The chat session routes as typed calls: rename, delete, search, and a message's versions
 * (regenerate, edit and resend, switch). Sending a message stays in `Conversation`.
 */
import { apiFetch } from '../api.ts';
import type { StartRunBody } from './chat-settings.svelte.ts';
import type { ChatSession, SessionDetail, StartedRun } from './types.ts';

/** A piece of highlighted text; `match` pieces are what the search found. */
export type TextSegment = { text: string; match: boolean };

/** `GET /api/sessions/search`: a session with its highlighted title and best matching message. */
export type SessionSearchHit = {
  session: ChatSession;
  rank: number;
  title: TextSegment[];
  message: { id: string; role: 'user' | 'assistant'; snippet: TextSegment[] } | null;
};

const sessionPath = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;

export function renameSession(id: string, title: string): Promise<ChatSession> {
  return apiFetch<ChatSession>(sessionPath(id), { method: 'PATCH', json: { title } });
}

export function deleteSession(id: string): Promise<unknown> {
  return apiFetch(sessionPath(id), { method: 'DELETE' });
}

export async function searchSessions(q: string, signal?: AbortSignal): Promise<SessionSearchHit[]> {
  const result = await apiFetch<{ items: SessionSearchHit[] }>(`/api/sessions/search?q=${encodeURIComponent(q)}`, { signal });
  return result.items;
}

/** Answers again: `messageId` is the answer to replace (it stays as a version). */
export function regenerateMessage(sessionId: string, messageId: string, options: Omit<StartRunBody, 'content'>): Promise<StartedRun> {
  return apiFetch<StartedRun>(`${sessionPath(sessionId)}/messages/${encodeURIComponent(messageId)}/regenerate`, { method: 'POST', json: options });
}

/** Sends an edited version of user message `messageId` on a new branch. */
export function editMessage(sessionId: string, messageId: string, body: StartRunBody): Promise<StartedRun> {
  return apiFetch<StartedRun>(`${sessionPath(sessionId)}/messages/${encodeURIComponent(messageId)}/edit`, { method: 'POST', json: body });
}

/** Shows version `messageId` (and the branch below it); answers the session as it now reads. */
export function selectVersion(sessionId: string, messageId: string): Promise<SessionDetail> {
  return apiFetch<SessionDetail>(`${sessionPath(sessionId)}/messages/${encodeURIComponent(messageId)}/select`, { method: 'POST' });
}
