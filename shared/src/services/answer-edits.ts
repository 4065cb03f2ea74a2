import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { chatSessions, messages, runs } from '../db/schema';
import { newId } from '../ids';
import { ActiveRunConflictError, getActiveRun, type ChatSession } from './chat';
import { InvalidInputError, NotFoundError } from './errors';

/**
 * Editing an answer, as Open WebUI and LibreChat allow: the user corrects what the model said, and
 * the conversation goes on from the corrected words. The edit is a new version of the answer (its
 * sibling under the same question, shown at once; ‹ 1/2 › switches back), so the model's own words
 * stay. It keeps the answer's tool calls (what was done happened) and replaces its text and
 * reasoning with the user's text; a `data-edited` part says which answer it was made from. No run:
 * nothing is asked of the model, and the next question reads the edited answer as the model's.
 */

export const reviseAnswerInputSchema = z.object({
  text: z.string().trim().min(1, 'Write the answer').max(100_000, 'Keep the answer under 100,000 characters'),
});
export type ReviseAnswerInput = z.input<typeof reviseAnswerInputSchema>;

/** The part that marks an edited answer, naming the model's answer it was edited from. */
export type EditedPart = { type: 'data-edited'; data: { from: string } };

const isToolPart = (part: { type?: unknown }) => typeof part.type === 'string' && (part.type.startsWith('tool-') || part.type === 'dynamic-tool');

/** Stores `text` as a new version of answer `messageId` of `session`; answers the new message's id. */
export async function reviseAnswer(db: Database, session: ChatSession, messageId: string, input: ReviseAnswerInput): Promise<string> {
  const { text } = reviseAnswerInputSchema.parse(input);
  const [answer] = await db
    .select({
      role: messages.role,
      parts: messages.parts,
      // An answer the worker stored without a parent follows the question its run answered.
      parentId: sql<string | null>`coalesce(${messages.parentId}, ${runs.replyToMessageId})`,
    })
    .from(messages)
    .leftJoin(runs, eq(runs.id, messages.runId))
    .where(and(eq(messages.id, messageId), eq(messages.sessionId, session.id)));
  if (!answer) throw new NotFoundError('Message', messageId);
  if (answer.role !== 'assistant') throw new InvalidInputError('Only an answer can be edited this way; edit a question to send it again', [{ path: ['messageId'], message: 'This message is a question' }]);
  // An answer being written would land beside the edit and hide it: one change at a time.
  const active = await getActiveRun(db, session.id);
  if (active) throw new ActiveRunConflictError(active.id, 'Wait for the answer being written to finish before editing one');

  const parts = answer.parts as { type?: unknown; data?: { from?: unknown } }[];
  const earlierEdit = parts.find((part) => part.type === 'data-edited');
  const from = typeof earlierEdit?.data?.from === 'string' ? earlierEdit.data.from : messageId;
  const edited: EditedPart = { type: 'data-edited', data: { from } };
  const id = newId('message');
  await db.transaction(async (tx) => {
    await tx.insert(messages).values({ id, sessionId: session.id, role: 'assistant', parts: [...parts.filter(isToolPart), { type: 'text', text }, edited], parentId: answer.parentId, selectedAt: new Date() });
    await tx.update(chatSessions).set({ updatedAt: new Date() }).where(eq(chatSessions.id, session.id));
  });
  return id;
}
