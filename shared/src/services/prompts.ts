import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { prompts } from '../db/schema';
import { newId } from '../ids';
import { ConflictError, isUniqueViolation, NotFoundError } from './errors';

/**
 * A user's saved prompts (`/command` in the composer). Every query is scoped to the acting user, so
 * another user's prompt is indistinguishable from a missing one.
 */

export type Prompt = typeof prompts.$inferSelect;

export const PROMPT_COMMAND = /^[a-z0-9][a-z0-9-]{0,39}$/;

const promptFields = {
  command: z
    .string()
    .trim()
    .transform((command) => command.replace(/^\//, '').toLowerCase())
    .pipe(z.string().regex(PROMPT_COMMAND, 'Use up to 40 lower-case letters, digits and dashes, starting with a letter or digit')),
  title: z.string().trim().min(1, 'Give the prompt a title').max(100, 'Keep the title under 100 characters'),
  content: z.string().min(1, 'Write the prompt').max(20_000, 'Keep the prompt under 20,000 characters'),
};

export const createPromptInputSchema = z.object(promptFields);
export const updatePromptInputSchema = z
  .object(promptFields)
  .partial()
  .refine((input) => Object.keys(input).length > 0, 'Send a command, title or content');
export type CreatePromptInput = z.infer<typeof createPromptInputSchema>;
export type UpdatePromptInput = z.infer<typeof updatePromptInputSchema>;

const commandTaken = (command: string) => new ConflictError(`You already have a prompt /${command}`, { command });

/** The user's prompts, by command. */
export function listPrompts(db: Database, userId: string): Promise<Prompt[]> {
  return db.select().from(prompts).where(eq(prompts.userId, userId)).orderBy(asc(prompts.command));
}

export async function createPrompt(db: Database, userId: string, input: CreatePromptInput): Promise<Prompt> {
  try {
    const [row] = await db.insert(prompts).values({ id: newId('prompt'), userId, ...input }).returning();
    return row!;
  } catch (error) {
    if (isUniqueViolation(error)) throw commandTaken(input.command);
    throw error;
  }
}

export async function updatePrompt(db: Database, userId: string, id: string, input: UpdatePromptInput): Promise<Prompt> {
  try {
    const [row] = await db.update(prompts).set(input).where(and(eq(prompts.id, id), eq(prompts.userId, userId))).returning();
    if (!row) throw new NotFoundError('Prompt', id);
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) throw commandTaken(input.command ?? '');
    throw error;
  }
}

export async function deletePrompt(db: Database, userId: string, id: string): Promise<void> {
  const deleted = await db.delete(prompts).where(and(eq(prompts.id, id), eq(prompts.userId, userId))).returning({ id: prompts.id });
  if (deleted.length === 0) throw new NotFoundError('Prompt', id);
}
