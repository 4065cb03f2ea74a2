/** LLM models (`/api/models`, admins); the API key is write-only, only `hasApiKey` comes back. */
import type { ListPage, ModelChanges, ModelInput, ModelView } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { segment, type FetchOption } from '../api-routes.ts';

export type { ModelView } from '@agentq/shared/api-types';

export async function listModels(options: FetchOption = {}): Promise<ModelView[]> {
  return (await apiFetch<ListPage<ModelView>>('/api/models', options)).items;
}

export function createModel(input: ModelInput): Promise<ModelView> {
  return apiFetch('/api/models', { method: 'POST', json: input });
}

/** `apiKey` left out keeps the stored key; null clears it. */
export function updateModel(id: string, changes: ModelChanges): Promise<ModelView> {
  return apiFetch(`/api/models/${segment(id)}`, { method: 'PUT', json: changes });
}

export async function deleteModel(id: string): Promise<void> {
  await apiFetch(`/api/models/${segment(id)}`, { method: 'DELETE' });
}
