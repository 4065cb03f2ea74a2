/** Admin user management (`/api/users`); types from @agentq/shared/api-types. */
import type { CreateUserInput, ListedUserView, UpdateUserInput, UserView } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { queryString, type FetchOption } from '../api-routes.ts';
import { loadShown, ShownCount } from '../paging/shown-pages.svelte.ts';

export type UserPage = { items: ListedUserView[]; total: number; nextCursor: string | null };

/** Users newest first, a page at a time; `q` finds those whose email or name holds every word. */
export function listUsers(query: { q?: string; limit?: number; cursor?: string | null; awaitingApproval?: 'true' } = {}, options: FetchOption = {}): Promise<UserPage> {
  return apiFetch(`/api/users${queryString(query)}`, options);
}

/** How many users the admin list shows (see shown-pages.svelte.ts). */
export const usersShown = new ShownCount(50);

/** The `count` newest users matching `q` (only sign-ups awaiting approval with `awaiting`), whether more follow, and how many match in all. */
export function loadShownUsers(count: number, q: string, options: FetchOption = {}, awaiting = false): Promise<{ items: ListedUserView[]; more: boolean; total?: number }> {
  return loadShown(count, (page) => listUsers({ ...page, q, ...(awaiting && { awaitingApproval: 'true' as const }) }, options));
}

/** How many sign-ups wait for an admin's approval. */
export async function countAwaitingApproval(options: FetchOption = {}): Promise<number> {
  return (await listUsers({ awaitingApproval: 'true', limit: 1 }, options)).total;
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

/** Turns a user's two-factor sign-in off (they lost the phone and the recovery codes); audited. */
export function resetTwoFactor(id: string): Promise<void> {
  return apiFetch(`/api/users/${encodeURIComponent(id)}/two-factor`, { method: 'DELETE' });
}
