/** The user's folders of chats (`/api/folders`); a chat is filed with setSessionFolder. */
import { apiFetch } from '../api.ts';
import { segment, type FetchOption, type RouteOutput } from '../api-routes.ts';

export type ChatFolder = RouteOutput<'/folders', '$get'>['items'][number];

export async function listFolders(options: FetchOption = {}): Promise<ChatFolder[]> {
  return (await apiFetch<{ items: ChatFolder[] }>('/api/folders', options)).items;
}

export function createFolder(name: string): Promise<ChatFolder> {
  return apiFetch('/api/folders', { method: 'POST', json: { name } });
}

export function renameFolder(id: string, name: string): Promise<unknown> {
  return apiFetch(`/api/folders/${segment(id)}`, { method: 'PATCH', json: { name } });
}

export function deleteFolder(id: string): Promise<void> {
  return apiFetch(`/api/folders/${segment(id)}`, { method: 'DELETE' });
}
