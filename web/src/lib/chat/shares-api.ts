/**
 * Shared links: a chat's own link (make, update, take down, on `/api/sessions/:id/share`), the
 * user's links, and a shared chat as a reader sees it, with "save a copy".
 */
import type { UIMessage } from 'ai';
import { ApiError, apiFetch } from '../api.ts';
import { segment, type FetchOption, type RouteOutput } from '../api-routes.ts';

/** A chat's link as its owner manages it. */
export type ChatShare = RouteOutput<'/sessions/:id/share', '$get'>;
/** A shared chat as any signed-in reader sees it (the owner's name, the copied messages). */
export type SharedChat = Omit<RouteOutput<'/shared/:shareId', '$get'>, 'messages'> & { messages: { role: 'user' | 'assistant'; createdAt: string; parts: UIMessage['parts'] }[] };

const sharePath = (sessionId: string) => `/api/sessions/${segment(sessionId)}/share`;

/** A file a shared chat's question carried, as its readers fetch it. */
export const sharedFileHref = (shareId: string, fileId: string) => `/api/shared/${segment(shareId)}/files/${segment(fileId)}`;

/** Where a link opens, as a reader pastes it. */
export function shareUrl(shareId: string, origin = location.origin): string {
  return `${origin}/shared/${encodeURIComponent(shareId)}`;
}

/** The chat's link; null when it has none. */
export async function getChatShare(sessionId: string): Promise<ChatShare | null> {
  try {
    return await apiFetch<ChatShare>(sharePath(sessionId));
  } catch (caught) {
    if (caught instanceof ApiError && caught.status === 404) return null;
    throw caught;
  }
}

/** Makes the chat's link, or updates it to the chat as it is now (the link stays the same). */
export function shareChat(sessionId: string): Promise<ChatShare> {
  return apiFetch(sharePath(sessionId), { method: 'PUT' });
}

export async function unshareChat(sessionId: string): Promise<void> {
  await apiFetch(sharePath(sessionId), { method: 'DELETE' });
}

export async function listChatShares(options: FetchOption = {}): Promise<ChatShare[]> {
  return (await apiFetch<{ items: ChatShare[] }>('/api/shared', options)).items;
}

export function getSharedChat(shareId: string, options: FetchOption = {}): Promise<SharedChat> {
  return apiFetch(`/api/shared/${segment(shareId)}`, options);
}

/** Saves the shared chat as one of the reader's own; answers the new chat. */
export function copySharedChat(shareId: string): Promise<{ id: string; title: string }> {
  return apiFetch(`/api/shared/${segment(shareId)}/copy`, { method: 'POST' });
}
