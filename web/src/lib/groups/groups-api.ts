/** User groups (`/api/groups`, admins): who can use the models and agents limited to them. */
import type { CreateGroupInput, GroupDetailView, GroupView, ListPage, UpdateGroupInput } from '@agentq/shared/api-types';
import { apiFetch } from '../api.ts';
import { segment, type FetchOption } from '../api-routes.ts';

export type { GroupDetailView, GroupMemberView, GroupView } from '@agentq/shared/api-types';

export async function listGroups(options: FetchOption = {}): Promise<GroupView[]> {
  return (await apiFetch<ListPage<GroupView>>('/api/groups', options)).items;
}

/** The group with its members. */
export function getGroup(id: string, options: FetchOption = {}): Promise<GroupDetailView> {
  return apiFetch(`/api/groups/${segment(id)}`, options);
}

export function createGroup(input: CreateGroupInput): Promise<GroupView> {
  return apiFetch('/api/groups', { method: 'POST', json: input });
}

export function updateGroup(id: string, input: UpdateGroupInput): Promise<GroupView> {
  return apiFetch(`/api/groups/${segment(id)}`, { method: 'PATCH', json: input });
}

/** Refused (409) while a model or an agent is limited to the group. */
export async function deleteGroup(id: string): Promise<void> {
  await apiFetch(`/api/groups/${segment(id)}`, { method: 'DELETE' });
}

export async function addGroupMember(groupId: string, userId: string): Promise<void> {
  await apiFetch(`/api/groups/${segment(groupId)}/members/${segment(userId)}`, { method: 'PUT' });
}

export async function removeGroupMember(groupId: string, userId: string): Promise<void> {
  await apiFetch(`/api/groups/${segment(groupId)}/members/${segment(userId)}`, { method: 'DELETE' });
}
