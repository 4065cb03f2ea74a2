/** The user's saved prompts (`/command` in the composer): list, create, change, delete. */
import { apiFetch } from '../api.ts';
import { segment, type FetchOption, type RouteOutput } from '../api-routes.ts';

export type SavedPrompt = RouteOutput<'/prompts', '$post'>;
export type PromptInput = { command: string; title: string; content: string };

export async function listPrompts(options: FetchOption = {}): Promise<SavedPrompt[]> {
  return (await apiFetch<{ items: SavedPrompt[] }>('/api/prompts', options)).items;
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
