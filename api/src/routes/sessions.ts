import { enqueue } from '@agentq/shared/queues';
import {
  createChatSession,
  createSessionInputSchema,
  getActiveRun,
  getChatSessionFor,
  isDependencyDown,
  listAgents,
  listModels,
  listChatSessions,
  listSessionMessages,
  startChatRun,
  startRunInputSchema,
  transitionRun,
} from '@agentq/shared/services';
import { runs } from '@agentq/shared/db';
import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });
const idempotencyHeader = z.object({ 'idempotency-key': z.string().min(1).max(200).optional() });

/** What any signed-in user may pick from on the chat page: names only, no configuration or secrets. */
export const chatOptionRoutes = new Hono<AppEnv>().get(
  '/',
  describeRoute({ tags: ['chat'], summary: 'Models and agents a user can choose for a run (ids and names only)' }),
  requireUser,
  async (c) => {
    const [models, agents] = await Promise.all([listModels(c.var.db, { enabled: true }), listAgents(c.var.db)]);
    return c.json({
      models: models.map((model) => ({ id: model.id, name: model.name, supportsReasoning: model.supportsReasoning })),
      agents: agents.map((agent) => ({ id: agent.id, name: agent.name, isDefault: agent.isDefault, modelId: agent.modelId })),
    });
  },
);

export const sessionRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .post('/', describeRoute({ tags: ['chat'], summary: 'Start a chat session' }), validate('json', createSessionInputSchema), async (c) =>
    c.json(await createChatSession(c.var.db, currentUser(c).id, c.req.valid('json')), 201),
  )
  .get('/', describeRoute({ tags: ['chat'], summary: 'Your chat sessions, most recent first' }), async (c) =>
    c.json({ items: await listChatSessions(c.var.db, currentUser(c).id) }),
  )
  .get('/:id', describeRoute({ tags: ['chat'], summary: 'A session with its messages (UI parts), its runs\' outcomes and its active run' }), validate('param', idParam), async (c) => {
    const session = await getChatSessionFor(c.var.db, c.req.valid('param').id, currentUser(c).id);
    const [messageRows, activeRun, runRows] = await Promise.all([
      listSessionMessages(c.var.db, session.id),
      getActiveRun(c.var.db, session.id),
      c.var.db
        .select({ id: runs.id, status: runs.status, error: runs.error, finishReason: runs.finishReason, hitStepLimit: runs.hitStepLimit, steps: runs.steps })
        .from(runs)
        .where(eq(runs.sessionId, session.id)),
    ]);
    return c.json({ ...session, messages: messageRows, activeRunId: activeRun?.id ?? null, runs: runRows });
  })
  .post(
    '/:id/runs',
    describeRoute({
      tags: ['chat'],
      summary: 'Send a message: stores it, enqueues a chat turn and answers 202 at once',
      description: 'An Idempotency-Key header makes a retried request return the same run. A session has at most one active run (409 names it).',
    }),
    validate('param', idParam),
    validate('header', idempotencyHeader),
    validate('json', startRunInputSchema),
    async (c) => {
      const user = currentUser(c);
      const session = await getChatSessionFor(c.var.db, c.req.valid('param').id, user.id);
      const idempotencyKey = c.req.valid('header')['idempotency-key'];
      const { run, created } = await startChatRun(c.var.db, { userId: user.id, session, input: c.req.valid('json'), idempotencyKey });
      const body = { runId: run.id, eventsUrl: `/api/runs/${run.id}/events`, status: run.status };
      if (!created) return c.json(body, 202);
      try {
        await enqueue(c.var.queues, 'chatTurns', 'chat-turn', { runId: run.id }, { jobId: run.id });
      } catch (error) {
        // Nothing will run it: end the run so the session is not blocked, then report the outage.
        await transitionRun(c.var.db, run.id, 'failed', { error: 'Could not enqueue the run (queue unavailable)' });
        if (isDependencyDown(error)) throw new ApiError(503, 'service_unavailable', 'The queue is unavailable; try again shortly');
        throw error;
      }
      return c.json(body, 202);
    },
  );
