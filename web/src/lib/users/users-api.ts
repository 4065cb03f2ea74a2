/** Admin user management (`/api/users`); types from @agentq/shared/api-types. */
import type { CreateUserInput, ListedUserView, UpdateUserInput, UserView } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { queryString, type FetchOption } from '../api-routes.ts';
import { loadShown, ShownCount } from '../paging/shown-pages.svelte.ts';

export type UserPage = { items: ListedUserView[]; total: number; nextCursor: string | null };

/** Users newest first, a page at a time; `q` finds those whose email or name holds every word. */
export function listUsers(query: { q?: string; limit?: number; cursor?: string | null } = {}, options: FetchOption = {}): Promise<UserPage> {
  return apiFetch(`/api/users${queryString(query)}`, options);
}

/** How many users the admin list shows (see shown-pages.svelte.ts). */
export const usersShown = new ShownCount(50);

/** The `count` newest users matching `q`, whether more follow, and how many match in all. */
export function loadShownUsers(count: number, q: string, options: FetchOption = {}): Promise<{ items: ListedUserView[]; more: boolean; total?: number }> {
  return loadShown(count, (page) => listUsers({ ...page, q }, options));
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
