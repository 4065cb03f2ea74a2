import { and, arrayOverlaps, asc, eq, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { prompts, users } from '../db/schema';
import { newId } from '../ids';
import { ConflictError, ForbiddenError, isUniqueViolation, NotFoundError } from './errors';
import { checkGroupIds, groupIdsSchema } from './groups/groups';

/**
 * Saved prompts (`/command` in the composer). A user's own prompts, plus those an admin shared with
 * everyone or with a group they are in. Changes are scoped to the owner, so another user's prompt,
 * shared or not, is indistinguishable from a missing one.
 */

export type Prompt = typeof prompts.$inferSelect;

/** A prompt as the list shows it to one user: theirs (`owned`) or shared with them by `sharedBy`. */
export type ListedPrompt = Prompt & { owned: boolean; sharedBy: string | null };

/** Who acts on prompts: only admins share, and their groups decide which shared prompts they see. */
export type PromptActor = { userId: string; isAdmin: boolean; groupIds: readonly string[] };

export const PROMPT_COMMAND = /^[a-z0-9][a-z0-9-]{0,39}$/;

const promptFields = {
  command: z
    .string()
    .trim()
    .transform((command) => command.replace(/^\//, '').toLowerCase())
    .pipe(z.string().regex(PROMPT_COMMAND, 'Use up to 40 lower-case letters, digits and dashes, starting with a letter or digit')),
  title: z.string().trim().min(1, 'Give the prompt a title').max(100, 'Keep the title under 100 characters'),
  content: z.string().min(1, 'Write the prompt').max(20_000, 'Keep the prompt under 20,000 characters'),
  /** Admins only: offer it to other users. */
  shared: z.boolean(),
  /** Whom a shared prompt is for; empty is everyone. */
  groupIds: groupIdsSchema,
};

export const createPromptInputSchema = z.object({ ...promptFields, shared: promptFields.shared.default(false), groupIds: promptFields.groupIds.default([]) });
export const updatePromptInputSchema = z
  .object(promptFields)
  .partial()
  .refine((input) => Object.keys(input).length > 0, 'Send a command, title or content');
export type CreatePromptInput = z.input<typeof createPromptInputSchema>;
export type UpdatePromptInput = z.input<typeof updatePromptInputSchema>;

const commandTaken = (command: string) => new ConflictError(`You already have a prompt /${command}`, { command });

/** Sharing is an admin's: a user may keep a prompt to themselves (shared false), never offer it. */
async function checkSharing(db: Database, actor: PromptActor, input: { shared?: boolean; groupIds?: readonly string[] }): Promise<void> {
  if (!actor.isAdmin && (input.shared === true || (input.groupIds?.length ?? 0) > 0)) {
    throw new ForbiddenError('Only admins can share prompts with other users');
  }
  await checkGroupIds(db, input.groupIds);
}

/**
 * The user's prompts and the shared ones they may see (every shared one for an admin), by command.
 * A shared prompt stops being offered once its owner is no longer an admin. On a clash their own
 * prompt wins and the shared one is left out (then the earliest shared), so a `/command` names one prompt.
 */
export async function listPrompts(db: Database, actor: PromptActor): Promise<ListedPrompt[]> {
  const visibleShared = and(
    eq(prompts.shared, true),
    eq(users.role, 'admin'),
    actor.isAdmin ? undefined : or(sql`cardinality(${prompts.groupIds}) = 0`, actor.groupIds.length > 0 ? arrayOverlaps(prompts.groupIds, [...actor.groupIds]) : undefined),
  );
  const rows = await db
    .select({ prompt: prompts, ownerName: users.name })
    .from(prompts)
    .innerJoin(users, eq(users.id, prompts.userId))
    .where(or(eq(prompts.userId, actor.userId), visibleShared))
    .orderBy(asc(prompts.command), asc(prompts.createdAt));
  const taken = new Set(rows.filter((row) => row.prompt.userId === actor.userId).map((row) => row.prompt.command));
  const listed: ListedPrompt[] = [];
  for (const { prompt, ownerName } of rows) {
    const owned = prompt.userId === actor.userId;
    if (!owned) {
      if (taken.has(prompt.command)) continue;
      taken.add(prompt.command);
    }
    // Which groups a prompt is shared with is the admins' business: a member sees that it is shared, not with whom.
    listed.push({ ...prompt, groupIds: owned || actor.isAdmin ? prompt.groupIds : [], owned, sharedBy: owned ? null : ownerName });
  }
  return listed;
}

/** @throws {ForbiddenError} a non-admin sharing; {InvalidInputError} an unknown group; {ConflictError} a command taken */
export async function createPrompt(db: Database, actor: PromptActor, input: CreatePromptInput): Promise<Prompt> {
  const fields = createPromptInputSchema.parse(input);
  await checkSharing(db, actor, fields);
  try {
    const [row] = await db.insert(prompts).values({ id: newId('prompt'), userId: actor.userId, ...fields }).returning();
    return row!;
  } catch (error) {
    if (isUniqueViolation(error)) throw commandTaken(fields.command);
    throw error;
  }
}

/**
 * Changes one of the user's prompts; answers it with how it was before, so a change of sharing can
 * be audited. @throws {NotFoundError} for a prompt that is not theirs, and as createPrompt does
 */
export async function updatePrompt(db: Database, actor: PromptActor, id: string, input: UpdatePromptInput): Promise<{ prompt: Prompt; previous: Prompt }> {
  const fields = updatePromptInputSchema.parse(input);
  await checkSharing(db, actor, fields);
  const mine = and(eq(prompts.id, id), eq(prompts.userId, actor.userId));
  try {
    return await db.transaction(async (tx) => {
      const [previous] = await tx.select().from(prompts).where(mine).for('update');
      if (!previous) throw new NotFoundError('Prompt', id);
      const [prompt] = await tx.update(prompts).set(fields).where(mine).returning();
      return { prompt: prompt!, previous };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw commandTaken(fields.command ?? '');
    throw error;
  }
}

/** Deletes one of the user's prompts; answers it (was it shared?). @throws {NotFoundError} */
export async function deletePrompt(db: Database, userId: string, id: string): Promise<Prompt> {
  const [deleted] = await db.delete(prompts).where(and(eq(prompts.id, id), eq(prompts.userId, userId))).returning();
  if (!deleted) throw new NotFoundError('Prompt', id);
  return deleted;
}

/** Whether a change shared a prompt, changed whom it is shared with, or stopped sharing it; null when sharing stayed as it was. */
export function sharingChange(previous: Pick<Prompt, 'shared' | 'groupIds'> | null, current: Pick<Prompt, 'shared' | 'groupIds'> | null): 'share' | 'unshare' | null {
  const was = previous?.shared ? [...previous.groupIds].sort().join() : null;
  const now = current?.shared ? [...current.groupIds].sort().join() : null;
  if (was === now) return null;
  return now === null ? 'unshare' : 'share';
}
