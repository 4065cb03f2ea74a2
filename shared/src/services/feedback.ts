import { and, count, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { agents, answerFeedback, chatSessions, FEEDBACK_RATINGS, llmModels, messages, runs, users } from '../db/schema';
import type { ChatSession } from './chat';
import { InvalidInputError, NotFoundError } from './errors';
import { keysetPage, keysetQuerySchema, newestFirst } from './keyset-page';
import { messageText } from './message-text';
import { requireSavedChat } from './temporary-chats';

/**
 * Ratings of answers (👍/👎 with an optional comment): the user rates an answer of their own chat,
 * admins read every rating, newest first, to see which answers fall short and open their runs.
 */

export const feedbackInputSchema = z.object({
  rating: z.enum(FEEDBACK_RATINGS),
  /** What was good or wrong; blank clears it. */
  comment: z
    .string()
    .trim()
    .max(2000, 'Use at most 2,000 characters')
    .nullish()
    .transform((comment) => comment || null),
});
export type FeedbackInput = z.input<typeof feedbackInputSchema>;

export type AnswerFeedback = { messageId: string; rating: (typeof FEEDBACK_RATINGS)[number]; comment: string | null; updatedAt: Date };

const feedbackColumns = { messageId: answerFeedback.messageId, rating: answerFeedback.rating, comment: answerFeedback.comment, updatedAt: answerFeedback.updatedAt };

/**
 * Rates an answer of the session (again: the new rating replaces the old). Only answers are rated,
 * and not in a temporary chat: a rating shows its answer's excerpt to admins (listFeedback).
 */
export async function rateAnswer(db: Database, session: ChatSession, messageId: string, input: FeedbackInput): Promise<AnswerFeedback> {
  const { rating, comment } = feedbackInputSchema.parse(input);
  requireSavedChat(session, 'rated');
  const [message] = await db
    .select({ role: messages.role, runId: messages.runId })
    .from(messages)
    .where(and(eq(messages.id, messageId), eq(messages.sessionId, session.id)));
  if (!message) throw new NotFoundError('Message', messageId);
  if (message.role !== 'assistant') throw new InvalidInputError('Only an answer can be rated', [{ path: ['messageId'], message: 'This message is a question' }]);
  const [rated] = await db
    .insert(answerFeedback)
    .values({ messageId, sessionId: session.id, userId: session.userId, runId: message.runId, rating, comment })
    .onConflictDoUpdate({ target: answerFeedback.messageId, set: { rating, comment, updatedAt: sql`now()` } })
    .returning(feedbackColumns);
  return rated!;
}

/** Takes a rating back; answers whether there was one. */
export async function clearAnswerFeedback(db: Database, session: ChatSession, messageId: string): Promise<boolean> {
  const removed = await db
    .delete(answerFeedback)
    .where(and(eq(answerFeedback.messageId, messageId), eq(answerFeedback.sessionId, session.id)))
    .returning({ messageId: answerFeedback.messageId });
  return removed.length > 0;
}

/** The session's ratings, for the chat to show on its answers. */
export function sessionFeedback(db: Database, sessionId: string): Promise<AnswerFeedback[]> {
  return db.select(feedbackColumns).from(answerFeedback).where(eq(answerFeedback.sessionId, sessionId));
}

/** When ratings were given (or last changed): `since` inclusive, `until` exclusive, ISO 8601 with an offset. */
const feedbackWindow = {
  since: z.iso.datetime({ offset: true, message: 'Give a date and time such as 2026-12-01T00:00:00Z' }).optional(),
  until: z.iso.datetime({ offset: true, message: 'Give a date and time such as 2026-12-08T00:00:00Z' }).optional(),
};
const windowInOrder = (query: { since?: string | undefined; until?: string | undefined }) => !query.since || !query.until || new Date(query.since) < new Date(query.until);
const WINDOW_ORDER = { message: 'The start (since) must be before the end (until)', path: ['until'] };

export const feedbackWindowSchema = z.object(feedbackWindow).refine(windowInOrder, WINDOW_ORDER);
export type FeedbackWindow = z.input<typeof feedbackWindowSchema>;

export const feedbackListQuerySchema = keysetQuerySchema
  .extend({
    rating: z.enum(FEEDBACK_RATINGS).optional(),
    /** Only the answers of runs of this agent, or of this model. */
    agentId: z.string().min(1).max(100).optional(),
    modelId: z.string().min(1).max(100).optional(),
    ...feedbackWindow,
  })
  .refine(windowInOrder, WINDOW_ORDER);
export type FeedbackListQuery = z.input<typeof feedbackListQuerySchema>;

/** The start of an answer's text, to recognise it in a list. */
const EXCERPT_CHARS = 240;

function excerptOf(parts: unknown): string {
  const text = messageText(parts).replace(/\s+/g, ' ').trim();
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS - 1)}…` : text;
}

/**
 * Every rating (admins), the latest first, a page at a time, with who gave it, the chat, the run and
 * the start of the answer; `counts` are the ratings of the agent and model asked for, by kind.
 */
export async function listFeedback(db: Database, query: FeedbackListQuery = {}) {
  const { limit, cursor, rating, agentId, modelId, since, until } = feedbackListQuerySchema.parse(query);
  // What the list and its counts share: the agent, the model and the days asked for.
  const scope = and(agentId ? eq(runs.agentId, agentId) : undefined, modelId ? eq(runs.modelId, modelId) : undefined, ratedWithin({ since, until }));
  const order = newestFirst(answerFeedback.updatedAt, answerFeedback.messageId);
  const [rows, tallies] = await Promise.all([
    db
      .select({
        ...feedbackColumns,
        position: order.position,
        sessionId: answerFeedback.sessionId,
        sessionTitle: chatSessions.title,
        runId: answerFeedback.runId,
        agentId: runs.agentId,
        modelId: runs.modelId,
        userId: answerFeedback.userId,
        userEmail: users.email,
        userName: users.name,
        parts: messages.parts,
      })
      .from(answerFeedback)
      .innerJoin(messages, eq(messages.id, answerFeedback.messageId))
      .innerJoin(chatSessions, eq(chatSessions.id, answerFeedback.sessionId))
      .innerJoin(users, eq(users.id, answerFeedback.userId))
      .leftJoin(runs, eq(runs.id, answerFeedback.runId))
      .where(
        and(
          rating ? eq(answerFeedback.rating, rating) : undefined,
          scope,
          order.after(cursor),
        ),
      )
      .orderBy(...order.orderBy)
      .limit(limit + 1),
    db
      .select({ rating: answerFeedback.rating, count: count() })
      .from(answerFeedback)
      .leftJoin(runs, eq(runs.id, answerFeedback.runId))
      .where(scope)
      .groupBy(answerFeedback.rating),
  ]);
  const page = keysetPage(rows, limit, ({ position: _position, parts, ...row }) => ({ id: row.messageId, ...row, excerpt: excerptOf(parts) }));
  const counts = { up: 0, down: 0 };
  for (const tally of tallies) counts[tally.rating] = tally.count;
  return { ...page, counts };
}

/**
 * Every rating counted by the agent and model of the run that wrote the answer, the most bad ones
 * first: which agent or model falls short. A deleted agent or model keeps its id, without a name.
 */
export async function feedbackSummary(db: Database, window: FeedbackWindow = {}) {
  const down = sql<number>`count(*) filter (where ${answerFeedback.rating} = 'down')`.mapWith(Number);
  return db
    .select({
      agentId: runs.agentId,
      agentName: agents.name,
      modelId: runs.modelId,
      modelName: llmModels.name,
      up: sql<number>`count(*) filter (where ${answerFeedback.rating} = 'up')`.mapWith(Number),
      down,
    })
    .from(answerFeedback)
    .leftJoin(runs, eq(runs.id, answerFeedback.runId))
    .leftJoin(agents, eq(agents.id, runs.agentId))
    .leftJoin(llmModels, eq(llmModels.id, runs.modelId))
    .where(ratedWithin(window))
    .groupBy(runs.agentId, agents.name, runs.modelId, llmModels.name)
    .orderBy(desc(down), desc(count()));
}

/** Ratings given (or last changed) in the window; no condition for an open end. */
function ratedWithin({ since, until }: FeedbackWindow): SQL | undefined {
  return and(since ? gte(answerFeedback.updatedAt, new Date(since)) : undefined, until ? lt(answerFeedback.updatedAt, new Date(until)) : undefined);
}
