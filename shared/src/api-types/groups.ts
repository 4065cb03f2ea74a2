import { z } from 'zod';

/**
 * User groups on the wire (Admin → Groups): the request schemas the API validates with and the
 * response shapes (dates as ISO strings). zod only, so the web app may import it.
 */

const name = z.string().trim().min(1, 'Give the group a name').max(100, 'Keep the name under 100 characters');
const description = z.string().trim().max(500, 'Keep the description under 500 characters');

/** POST /api/groups. */
export const createGroupInputSchema = z.object({ name, description: description.default('') });
export type CreateGroupInput = z.input<typeof createGroupInputSchema>;

/** PATCH /api/groups/:id: a new name, description or both. */
export const updateGroupInputSchema = z
  .object({ name, description })
  .partial()
  .refine((input) => input.name !== undefined || input.description !== undefined, 'Send a name, a description or both');
export type UpdateGroupInput = z.input<typeof updateGroupInputSchema>;

/**
 * "Who can use it" of a model or an agent: the groups whose members may use it; empty (the
 * default) is everyone. Admins always may.
 */
export const groupIdsSchema = z
  .array(z.string().min(1).max(100))
  .max(100, 'Choose at most 100 groups')
  .transform((ids) => [...new Set(ids)]);

/** A group as GET /api/groups lists it. */
export type GroupView = { id: string; name: string; description: string; memberCount: number; createdAt: string; updatedAt: string };
/** A member as GET /api/groups/:id shows them. */
export type GroupMemberView = { id: string; email: string; name: string };
/** GET /api/groups/:id: the group with its members (by name). */
export type GroupDetailView = GroupView & { members: GroupMemberView[] };
