/** Admin user management (`/api/users`); types from @agentq/shared/api-types. */
import type { CreateUserInput, UpdateUserInput, UserView } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';

export function listUsers(fetchImpl?: typeof fetch): Promise<{ items: UserView[] }> {
  return apiFetch('/api/users', { fetch: fetchImpl });
}

export function createUser(input: CreateUserInput): Promise<UserView> {
  return apiFetch('/api/users', { method: 'POST', json: input });
}

export function updateUser(id: string, input: UpdateUserInput): Promise<UserView> {
  return apiFetch(`/api/users/${encodeURIComponent(id)}`, { method: 'PATCH', json: input });
}

export function deleteUser(id: string): Promise<void> {
  return apiFetch(`/api/users/${encodeURIComponent(id)}`, { method: 'DELETE' });
}
