/** Agents (`/api/agents`, admins): types from @agentq/shared/api-types. */
import type { AgentChanges, AgentInput, AgentView, ListPage } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { segment, type FetchOption } from '../api-routes.ts';

export type { AgentToolAssociationView, AgentView } from '@agentq/shared/api-types';

export async function listAgents(options: FetchOption = {}): Promise<AgentView[]> {
  return (await apiFetch<ListPage<AgentView>>('/api/agents', options)).items;
}

export function createAgent(input: AgentInput): Promise<AgentView> {
  return apiFetch('/api/agents', { method: 'POST', json: input });
}

/** Sending `tools` replaces the agent's whole tool list. */
export function updateAgent(id: string, changes: AgentChanges): Promise<AgentView> {
  return apiFetch(`/api/agents/${segment(id)}`, { method: 'PUT', json: changes });
}

export async function deleteAgent(id: string): Promise<void> {
  await apiFetch(`/api/agents/${segment(id)}`, { method: 'DELETE' });
}
