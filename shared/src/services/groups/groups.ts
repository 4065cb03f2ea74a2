import { and, arrayContains, asc, eq, inArray, sql } from 'drizzle-orm';
import { type CreateGroupInput, createGroupInputSchema, type UpdateGroupInput, updateGroupInputSchema } from '../../api-types/groups';
import type { Database } from '../../db/client';
import { agents, knowledgeBases, llmModels, prompts, userGroupMembers, userGroups, users } from '../../db/schema';
import { newId } from '../../ids';
import { invalidateConfig } from '../config-cache';
import { ConflictError, InvalidInputError, isUniqueViolation, NotFoundError } from '../errors';

export { createGroupInputSchema, groupIdsSchema, updateGroupInputSchema, type CreateGroupInput, type UpdateGroupInput } from '../../api-types/groups';

export type Group = { id: string; name: string; description: string; memberCount: number; createdAt: Date; updatedAt: Date };
export type GroupMember = { id: string; email: string; name: string };
export type GroupDetail = Group & { members: GroupMember[] };

const memberCount = sql<number>`(select count(*)::int from ${userGroupMembers} where ${userGroupMembers.groupId} = ${userGroups.id})`;
const groupColumns = { id: userGroups.id, name: userGroups.name, description: userGroups.description, memberCount, createdAt: userGroups.createdAt, updatedAt: userGroups.updatedAt };

/** Every group by name, with how many members each has. */
export async function listGroups(db: Database): Promise<Group[]> {
  return db.select(groupColumns).from(userGroups).orderBy(asc(userGroups.name), asc(userGroups.id));
}

/** One group with its members by name. @throws {NotFoundError} */
export async function getGroup(db: Database, id: string): Promise<GroupDetail> {
  const [[group], members] = await Promise.all([
    db.select(groupColumns).from(userGroups).where(eq(userGroups.id, id)),
    db
      .select({ id: users.id, email: users.email, name: users.name })
      .from(userGroupMembers)
      .innerJoin(users, eq(users.id, userGroupMembers.userId))
      .where(eq(userGroupMembers.groupId, id))
      .orderBy(asc(users.name), asc(users.email)),
  ]);
  if (!group) throw new NotFoundError('Group', id);
  return { ...group, members };
}

function refuseTakenName(error: unknown, name: string | undefined): never {
  if (isUniqueViolation(error)) throw new ConflictError(`A group named '${name}' already exists`);
  throw error;
}

export async function createGroup(db: Database, input: CreateGroupInput): Promise<Group> {
  const fields = createGroupInputSchema.parse(input);
  const id = newId('group');
  await db.insert(userGroups).values({ id, ...fields }).catch((error: unknown) => refuseTakenName(error, fields.name));
  return (await getGroup(db, id)) satisfies Group;
}

/** Renames a group or changes its description; nothing cached holds either. @throws {NotFoundError} */
export async function updateGroup(db: Database, id: string, input: UpdateGroupInput): Promise<Group> {
  const fields = updateGroupInputSchema.parse(input);
  const updated = await db
    .update(userGroups)
    .set(fields)
    .where(eq(userGroups.id, id))
    .returning({ id: userGroups.id })
    .catch((error: unknown) => refuseTakenName(error, fields.name));
  if (updated.length === 0) throw new NotFoundError('Group', id);
  const { members: _members, ...group } = await getGroup(db, id);
  return group;
}

/**
 * Deletes a group and its memberships. Refused (409) while a model, an agent, a shared prompt or a
 * shared knowledge base is limited to it: taking the group away could leave it limited to no group,
 * which means everyone.
 */
export async function deleteGroup(db: Database, id: string): Promise<void> {
  const [modelsUsing, agentsUsing, promptsUsing, basesUsing] = await Promise.all([
    db.select({ name: llmModels.name }).from(llmModels).where(arrayContains(llmModels.groupIds, [id])),
    db.select({ name: agents.name }).from(agents).where(arrayContains(agents.groupIds, [id])),
    db.select({ command: prompts.command }).from(prompts).where(and(eq(prompts.shared, true), arrayContains(prompts.groupIds, [id]))),
    db.select({ name: knowledgeBases.name }).from(knowledgeBases).where(and(eq(knowledgeBases.shared, true), arrayContains(knowledgeBases.groupIds, [id]))),
  ]);
  const usedBy = [
    ...modelsUsing.map((model) => `model '${model.name}'`),
    ...agentsUsing.map((agent) => `agent '${agent.name}'`),
    ...promptsUsing.map((prompt) => `prompt '/${prompt.command}'`),
    ...basesUsing.map((base) => `knowledge base '${base.name}'`),
  ];
  if (usedBy.length > 0) {
    throw new ConflictError(`This group decides who can use ${usedBy.join(', ')}: take it out of their "Who can use it" (a prompt's or knowledge base's sharing) first`, { usedBy });
  }
  const deleted = await db.transaction(async (tx) => {
    // A prompt no longer shared may still name the group for when it is shared again: not any more.
    await tx.update(prompts).set({ groupIds: sql`array_remove(${prompts.groupIds}, ${id})` }).where(arrayContains(prompts.groupIds, [id]));
    await tx.update(knowledgeBases).set({ groupIds: sql`array_remove(${knowledgeBases.groupIds}, ${id})` }).where(arrayContains(knowledgeBases.groupIds, [id]));
    return tx.delete(userGroups).where(eq(userGroups.id, id)).returning({ id: userGroups.id });
  });
  if (deleted.length === 0) throw new NotFoundError('Group', id);
  await invalidateConfig(db, ['auth']);
}

/** Puts a user in a group (already in it: nothing changes); answers the group's and the user's names for the audit log. @throws {NotFoundError} for an unknown group or user */
export async function addGroupMember(db: Database, groupId: string, userId: string): Promise<{ group: string; member: string }> {
  const [[group], [user]] = await Promise.all([
    db.select({ id: userGroups.id, name: userGroups.name }).from(userGroups).where(eq(userGroups.id, groupId)),
    db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, userId)),
  ]);
  if (!group) throw new NotFoundError('Group', groupId);
  if (!user) throw new NotFoundError('User', userId);
  await db.insert(userGroupMembers).values({ groupId, userId }).onConflictDoNothing();
  // The signed-in user the auth cache keeps carries their group ids.
  await invalidateConfig(db, ['auth']);
  return { group: group.name, member: user.email };
}

/** Takes a user out of a group; answers the names as addGroupMember does. @throws {NotFoundError} when the group is unknown or they are not in it */
export async function removeGroupMember(db: Database, groupId: string, userId: string): Promise<{ group: string; member: string }> {
  const [names] = await db
    .select({ group: userGroups.name, member: users.email })
    .from(userGroups)
    .innerJoin(users, eq(users.id, userId))
    .where(eq(userGroups.id, groupId));
  const deleted = await db
    .delete(userGroupMembers)
    .where(and(eq(userGroupMembers.groupId, groupId), eq(userGroupMembers.userId, userId)))
    .returning({ userId: userGroupMembers.userId });
  if (deleted.length === 0 || !names) throw new NotFoundError('Group member', userId);
  await invalidateConfig(db, ['auth']);
  return names;
}

/** The groups of each user (by name), for Admin → Users. */
export async function groupsOfUsers(db: Database, userIds: string[]): Promise<Map<string, { id: string; name: string }[]>> {
  const byUser = new Map<string, { id: string; name: string }[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const rows = await db
    .select({ userId: userGroupMembers.userId, id: userGroups.id, name: userGroups.name })
    .from(userGroupMembers)
    .innerJoin(userGroups, eq(userGroups.id, userGroupMembers.groupId))
    .where(inArray(userGroupMembers.userId, userIds))
    .orderBy(asc(userGroups.name));
  for (const row of rows) byUser.get(row.userId)?.push({ id: row.id, name: row.name });
  return byUser;
}

/** The ids of the groups a user is in (a schedule's fire reads them; a request has them on its cached user). */
export async function groupIdsOfUser(db: Database, userId: string): Promise<string[]> {
  const rows = await db.select({ groupId: userGroupMembers.groupId }).from(userGroupMembers).where(eq(userGroupMembers.userId, userId));
  return rows.map((row) => row.groupId);
}

/** The SQL of a user's group ids as an array, for a statement that already reads the user (no extra round trip). */
export const groupIdsOfUserColumn = sql<string[]>`array(select ${userGroupMembers.groupId} from ${userGroupMembers} where ${userGroupMembers.userId} = ${users.id} order by 1)`;

/**
 * Checks a model's or an agent's "Who can use it" before it is stored: every group exists.
 * @throws {InvalidInputError} naming the unknown ids
 */
export async function checkGroupIds(db: Database, groupIds: readonly string[] | undefined): Promise<void> {
  if (!groupIds || groupIds.length === 0) return;
  const found = await db.select({ id: userGroups.id }).from(userGroups).where(inArray(userGroups.id, [...groupIds]));
  const unknown = groupIds.filter((id) => !found.some((row) => row.id === id));
  if (unknown.length > 0) {
    throw new InvalidInputError(`Unknown group ${unknown.join(', ')}: create it on Admin → Groups first`, [{ path: ['groupIds'], message: 'Unknown group' }]);
  }
}

