/** The user's saved prompts (`/command` in the composer) and those shared with them: list, create, change, delete. */
import { apiFetch } from '../api.ts';
import { segment, type FetchOption, type RouteOutput } from '../api-routes.ts';

export type SavedPrompt = RouteOutput<'/prompts', '$post'>;
/** A prompt in the list: the user's own (`owned`), or one an admin shared with them (`sharedBy`, read-only). */
export type ListedPrompt = RouteOutput<'/prompts', '$get'>['items'][number];
/** `shared` and `groupIds` (empty: everyone) are for admins; the API refuses them (403) to others. */
export type PromptInput = { command: string; title: string; content: string; shared?: boolean; groupIds?: string[] };

export async function listPrompts(options: FetchOption = {}): Promise<ListedPrompt[]> {
  return (await apiFetch<{ items: ListedPrompt[] }>('/api/prompts', options)).items;
}

export function createPrompt(input: PromptInput): Promise<SavedPrompt> {
  return apiFetch('/api/prompts', { method: 'POST', json: input });
}

export function updatePrompt(id: string, input: Partial<PromptInput>): Promise<SavedPrompt> {
  return apiFetch(`/api/prompts/${segment(id)}`, { method: 'PATCH', json: input });
}

export async function deletePrompt(id: string): Promise<void> {
  await apiFetch(`/api/prompts/${segment(id)}`, { method: 'DELETE' });
}
