/**
 * The chat's routes as typed calls: options, sessions (list, create, read, rename, delete, search),
 * starting runs, and a message's versions (regenerate, edit and resend, switch). Types come from
 * @agentq/shared/api-types, or off the API's routes where the API assembles the answer itself.
 */
import type { ChatSessionView, SessionMessageView, SessionSearchHitView, StartRunInput, TaggedChatSessionView } from '@agentq/shared/api-types';
import type { UIMessage } from 'ai';
import { apiFetch } from '../api.ts';
import { queryString, segment, type FetchOption, type RouteOutput } from '../api-routes.ts';

export type { RunStatus, RunView } from '@agentq/shared/api-types';

/** `GET /api/chat-options`: what any signed-in user may pick for a run. */
export type ChatOptions = RouteOutput<'/chat-options', '$get'>;
export type ChatSession = ChatSessionView;
/** A chat as the lists (`GET /api/sessions`) give it: with its tags. */
export type ListedSession = TaggedChatSessionView;
/** The body of `POST /api/sessions/:id/runs`. */
export type StartRunBody = StartRunInput;
/** `POST /api/sessions/:id/runs` → 202. */
export type StartedRun = RouteOutput<'/sessions/:id/runs', '$post'>;
/** Where a message sits among its versions (regenerated answers, edited questions): "‹ 2/3 ›". */
export type MessageVersions = SessionMessageView['versions'];
/** A stored message; the API keeps the AI SDK's UI parts as they were streamed. */
export type SessionMessage = Omit<SessionMessageView, 'parts'> & { parts: UIMessage['parts'] };
/** `GET /api/sessions/:id`: the shown branch of the conversation, its runs and the active run. */
export type SessionDetail = Omit<RouteOutput<'/sessions/:id', '$get'>, 'messages'> & { messages: SessionMessage[] };
/** How a finished run ended (stopped, failed, step limit): what a stored answer shows beside it. */
export type RunOutcome = NonNullable<RouteOutput<'/sessions/:id', '$get'>['runs']>[number];
export type SessionSearchHit = SessionSearchHitView;
/** A piece of highlighted text; `match` pieces are what the search found. */
export type TextSegment = SessionSearchHit['title'][number];

const sessionPath = (id: string) => `/api/sessions/${segment(id)}`;
const messagePath = (sessionId: string, messageId: string) => `${sessionPath(sessionId)}/messages/${segment(messageId)}`;

export function getChatOptions(options: FetchOption = {}): Promise<ChatOptions> {
  return apiFetch('/api/chat-options', options);
}

/** `GET /api/sessions`: a page of the user's sessions, most recently active first. */
export type SessionPage = RouteOutput<'/sessions', '$get'>;

/** `pinned`: 'true' lists only the pinned chats, 'false' only the others; `archived: 'true'` only the archived ones (left out otherwise). */
export function listSessions(page: { limit?: number; cursor?: string | null; pinned?: 'true' | 'false'; archived?: 'true'; folder?: string } = {}, options: FetchOption = {}): Promise<SessionPage> {
  return apiFetch(`/api/sessions${queryString(page)}`, options);
}

/** `temporary`: a chat in no list, search or memory, deleted after a day without use. */
export function createSession(input: { agentId?: string; temporary?: boolean } = {}): Promise<ChatSession> {
  return apiFetch('/api/sessions', { method: 'POST', json: input });
}

export function getSession(id: string, options: FetchOption = {}): Promise<SessionDetail> {
  return apiFetch(sessionPath(id), options);
}

/** Sends a message; the answer streams from `eventsUrl`. @throws {ApiError} 409 while another run is active. */
export function startRun(sessionId: string, body: StartRunBody): Promise<StartedRun> {
  return apiFetch(`${sessionPath(sessionId)}/runs`, { method: 'POST', json: body });
}

export function renameSession(id: string, title: string): Promise<ChatSession> {
  return apiFetch(sessionPath(id), { method: 'PATCH', json: { title } });
}

/** Pins the chat to the top of the list, or unpins it. */
export function setSessionPinned(id: string, pinned: boolean): Promise<ChatSession> {
  return apiFetch(sessionPath(id), { method: 'PATCH', json: { pinned } });
}

/** Files the chat in one of the user's folders, or (null) takes it out of its folder. */
export function setSessionFolder(id: string, folderId: string | null): Promise<ChatSession> {
  return apiFetch(sessionPath(id), { method: 'PATCH', json: { folderId } });
}

/** Keeps a temporary chat: from now on it is a chat like any other, in the lists and memory. */
export function keepTemporarySession(id: string): Promise<ChatSession> {
  return apiFetch(sessionPath(id), { method: 'PATCH', json: { temporary: false } });
}

/** Archives the chat out of the lists (it stays whole, and is unpinned), or restores it. */
export function setSessionArchived(id: string, archived: boolean): Promise<ChatSession> {
  return apiFetch(sessionPath(id), { method: 'PATCH', json: { archived } });
}

export async function deleteSession(id: string): Promise<void> {
  await apiFetch(sessionPath(id), { method: 'DELETE' });
}

/** Every chat of the user in one JSON file (Account → Data): a download, so a plain link. */
export const EXPORT_ALL_CHATS_URL = '/api/sessions/export';

/** Archives every chat not archived yet; answers how many. */
export function archiveAllChats(): Promise<RouteOutput<'/sessions/archive-all', '$post'>> {
  return apiFetch('/api/sessions/archive-all', { method: 'POST' });
}

/** Deletes every chat but those whose answer is running; answers how many went and stayed. */
export function deleteAllChats(): Promise<RouteOutput<'/sessions', '$delete'>> {
  return apiFetch('/api/sessions?all=true', { method: 'DELETE' });
}

export async function searchSessions(q: string, signal?: AbortSignal): Promise<SessionSearchHit[]> {
  return (await apiFetch<{ items: SessionSearchHit[] }>(`/api/sessions/search${queryString({ q })}`, { signal })).items;
}

/** Answers again: `messageId` is the answer to replace (it stays as a version). */
export function regenerateMessage(sessionId: string, messageId: string, options: Omit<StartRunBody, 'content'>): Promise<StartedRun> {
  return apiFetch(`${messagePath(sessionId, messageId)}/regenerate`, { method: 'POST', json: options });
}

/** Sends an edited version of user message `messageId` on a new branch. */
export function editMessage(sessionId: string, messageId: string, body: StartRunBody): Promise<StartedRun> {
  return apiFetch(`${messagePath(sessionId, messageId)}/edit`, { method: 'POST', json: body });
}

/** Stores `text` as a new version of answer `messageId`, shown at once; answers the session as it now reads. */
export function reviseAnswer(sessionId: string, messageId: string, text: string): Promise<SessionDetail> {
  return apiFetch(`${messagePath(sessionId, messageId)}/revise`, { method: 'POST', json: { text } });
}

/** Shows version `messageId` (and the branch below it); answers the session as it now reads. */
export function selectVersion(sessionId: string, messageId: string): Promise<SessionDetail> {
  return apiFetch(`${messagePath(sessionId, messageId)}/select`, { method: 'POST' });
}

/** A new chat holding the conversation down to `messageId` (its files copied); this one stays as it is. */
export function forkChat(sessionId: string, messageId: string): Promise<RouteOutput<'/sessions/:id/messages/:messageId/fork', '$post'>> {
  return apiFetch(`${messagePath(sessionId, messageId)}/fork`, { method: 'POST' });
}

/** A rating of an answer (👍/👎) with its optional comment. */
export type AnswerFeedback = RouteOutput<'/sessions/:id/messages/:messageId/feedback', '$put'>;
export type FeedbackRating = AnswerFeedback['rating'];

/** Rates an answer (again: replaces the rating); a blank comment clears it. */
export function rateAnswer(sessionId: string, messageId: string, body: { rating: FeedbackRating; comment?: string | null }): Promise<AnswerFeedback> {
  return apiFetch(`${messagePath(sessionId, messageId)}/feedback`, { method: 'PUT', json: body });
}

/** Takes an answer's rating back. */
export async function clearAnswerRating(sessionId: string, messageId: string): Promise<void> {
  await apiFetch(`${messagePath(sessionId, messageId)}/feedback`, { method: 'DELETE' });
}
