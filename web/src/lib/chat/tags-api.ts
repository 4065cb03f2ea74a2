/** The user's tags of chats (`/api/tags`) and a chat's tags (`PUT /api/sessions/:id/tags`). */
import type { ChatTagView } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { segment, type FetchOption } from '../api-routes.ts';

export type ChatTag = ChatTagView;

/** The user's tags that some chat carries, by name, with how many chats carry each. */
export async function listTags(options: FetchOption = {}): Promise<ChatTag[]> {
  return (await apiFetch<{ items: ChatTag[] }>('/api/tags', options)).items;
}

/** Gives the chat these tags (replacing its own); answers its tags as stored (a known name keeps its first spelling). */
export async function setSessionTags(sessionId: string, tags: string[]): Promise<string[]> {
  return (await apiFetch<{ tags: string[] }>(`/api/sessions/${segment(sessionId)}/tags`, { method: 'PUT', json: { tags } })).tags;
}

/** Renames the tag on every chat (merging into a tag of the new name). */
export function renameTag(name: string, newName: string): Promise<ChatTag> {
  return apiFetch(`/api/tags/${segment(name)}`, { method: 'PATCH', json: { name: newName } });
}

/** Takes the tag off every chat. */
export async function deleteTag(name: string): Promise<void> {
  await apiFetch(`/api/tags/${segment(name)}`, { method: 'DELETE' });
}
