import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { ACTIVE_RUN_STATUSES, chatSessions, messages, runs } from '../db/schema';
import { newId } from '../ids';
import { findInAgentConfig, loadAgentConfig } from './agent-config';
import { ConflictError, InvalidInputError, NotFoundError } from './errors';
import type { Run } from './runs';

export type ChatSession = typeof chatSessions.$inferSelect;
export type ChatMessage = typeof messages.$inferSelect;

export const createSessionInputSchema = z.object({
  title: z.string().trim().min(1).max(200).optional(),
  agentId: z.string().max(100).optional(),
});

export const startRunInputSchema = z.object({
  content: z.string().trim().min(1, 'Write a message').max(100_000),
  agentId: z.string().max(100).optional(),
  modelId: z.string().max(100).optional(),
  enableTools: z.boolean().default(true),
  enableThinking: z.boolean().default(false),
  /** Replaces the agent's system prompt for this run. */
  systemPrompt: z.string().max(20_000).optional(),
});
export type StartRunInput = z.infer<typeof startRunInputSchema>;

export async function createChatSession(db: Database, userId: string, input: z.infer<typeof createSessionInputSchema>): Promise<ChatSession> {
  if (input.agentId) await requireAgent(db, input.agentId);
  const [session] = await db
    .insert(chatSessions)
    .values({ id: newId('chatSession'), userId, agentId: input.agentId ?? null, title: input.title ?? 'New chat' })
    .returning();
  return session!;
}

export async function listChatSessions(db: Database, userId: string): Promise<ChatSession[]> {
  return db.select().from(chatSessions).where(eq(chatSessions.userId, userId)).orderBy(desc(chatSessions.updatedAt)).limit(200);
}

/** The session if it belongs to this user; otherwise NotFound (never revealing that it exists). */
export async function getChatSessionFor(db: Database, id: string, userId: string): Promise<ChatSession> {
  const [session] = await db.select().from(chatSessions).where(and(eq(chatSessions.id, id), eq(chatSessions.userId, userId)));
  if (!session) throw new NotFoundError('Session', id);
  return session;
}

export async function listSessionMessages(db: Database, sessionId: string): Promise<ChatMessage[]> {
  return db.select().from(messages).where(eq(messages.sessionId, sessionId)).orderBy(asc(messages.createdAt), asc(messages.id));
}

/** The session's run that is queued, running or awaiting approval, if any. */
export async function getActiveRun(db: Database, sessionId: string): Promise<Run | undefined> {
  const [run] = await db
    .select()
    .from(runs)
    .where(and(eq(runs.sessionId, sessionId), inArray(runs.status, [...ACTIVE_RUN_STATUSES])));
  return run;
}

async function requireAgent(db: Database, agentId: string) {
  const agent = await findInAgentConfig(db, (config) => config.agents.find((candidate) => candidate.id === agentId));
  if (!agent) throw new InvalidInputError(`Agent '${agentId}' does not exist`, [{ path: ['agentId'], message: 'Unknown agent' }]);
  return agent;
}

/** Agent for a run: the requested one, the session's, or the default agent (else the oldest). Read through the config cache. */
async function resolveAgent(db: Database, requested: string | undefined, session: ChatSession) {
  const id = requested ?? session.agentId ?? undefined;
  if (id) return requireAgent(db, id);
  const { agents: rows } = await loadAgentConfig(db);
  return rows.find((agent) => agent.isDefault) ?? rows[0] ?? null;
}

/** Model for a run: the requested one, the agent's, or the oldest enabled model. Read through the config cache. */
async function resolveModel(db: Database, requested: string | undefined, agentModelId: string | null | undefined) {
  const id = requested ?? agentModelId ?? undefined;
  const model = id
    ? await findInAgentConfig(db, (config) => config.models.find((candidate) => candidate.id === id))
    : (await loadAgentConfig(db)).models.find((candidate) => candidate.enabled);
  if (!model) {
    throw new InvalidInputError(
      id ? `Model '${id}' does not exist` : 'No model is configured: an admin must add one (or set LLM_BASE_URL and LLM_MODEL)',
      [{ path: ['modelId'], message: id ? 'Unknown model' : 'No model configured' }],
    );
  }
  if (!model.enabled) throw new InvalidInputError(`Model '${model.name}' is disabled`, [{ path: ['modelId'], message: 'Model disabled' }]);
  return model;
}

function isActiveRunViolation(error: unknown): boolean {
  const candidate = error as { code?: string; constraint_name?: string; cause?: { code?: string; constraint_name?: string; constraint?: string } };
  const code = candidate?.code ?? candidate?.cause?.code;
  const constraint = candidate?.constraint_name ?? candidate?.cause?.constraint_name ?? candidate?.cause?.constraint;
  return code === '23505' && (constraint === undefined || constraint === 'runs_one_active_per_session_idx');
}

function isIdempotencyViolation(error: unknown): boolean {
  const candidate = error as { constraint_name?: string; cause?: { constraint_name?: string; constraint?: string } };
  return (candidate?.constraint_name ?? candidate?.cause?.constraint_name ?? candidate?.cause?.constraint) === 'runs_idempotency_idx';
}

export class ActiveRunConflictError extends ConflictError {
  constructor(readonly activeRunId: string) {
    super(`This session already has an active run (${activeRunId}); wait for it or cancel it`, { activeRunId });
  }
}

/**
 * Stores the user's message and a queued chat run in one transaction. The database's partial unique
 * index guarantees one active run per session; an idempotency key returns the run it created before.
 */
export async function startChatRun(
  db: Database,
  options: { userId: string; session: ChatSession; input: StartRunInput; idempotencyKey?: string },
): Promise<{ run: Run; created: boolean }> {
  const { userId, session, input, idempotencyKey } = options;
  if (idempotencyKey) {
    const [existing] = await db.select().from(runs).where(and(eq(runs.userId, userId), eq(runs.idempotencyKey, idempotencyKey)));
    if (existing) {
      if (existing.sessionId !== session.id) throw new ConflictError('This Idempotency-Key was already used for another session');
      return { run: existing, created: false };
    }
  }
  const agent = await resolveAgent(db, input.agentId, session);
  const model = await resolveModel(db, input.modelId, agent?.modelId);
  const runId = newId('run');
  try {
    const title = session.title === 'New chat' ? input.content.replace(/\s+/g, ' ').slice(0, 60) : session.title;
    const run = await db.transaction(async (tx) => {
      // Issued together, so postgres.js pipelines them on the transaction's connection: one round
      // trip instead of three. They still run in order (the message references the run).
      const [[created]] = await Promise.all([
        tx
          .insert(runs)
          .values({
            id: runId,
            kind: 'chat',
            userId,
            sessionId: session.id,
            agentId: agent?.id ?? null,
            modelId: model.id,
            options: { enableTools: input.enableTools, enableThinking: input.enableThinking, systemPrompt: input.systemPrompt },
            idempotencyKey: idempotencyKey ?? null,
            // The chat-turn job is enqueued under the run's id.
            queueJobId: runId,
          })
          .returning(),
        tx.insert(messages).values({ id: newId('message'), sessionId: session.id, role: 'user', parts: [{ type: 'text', text: input.content }], runId }),
        tx.update(chatSessions).set({ title, updatedAt: new Date() }).where(eq(chatSessions.id, session.id)),
      ]);
      return created!;
    });
    return { run, created: true };
  } catch (error) {
    if (idempotencyKey && isIdempotencyViolation(error)) {
      const [existing] = await db.select().from(runs).where(and(eq(runs.userId, userId), eq(runs.idempotencyKey, idempotencyKey)));
      if (existing) return { run: existing, created: false };
    }
    if (isActiveRunViolation(error)) {
      const active = await getActiveRun(db, session.id);
      throw new ActiveRunConflictError(active?.id ?? 'unknown');
    }
    throw error;
  }
}
