import { publishCancel } from '@agentq/shared/run-stream';
import { getRunFor, isTerminal, toRunView, transitionRun } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';
import { wakeParkedRun } from '../resume-run';
import { streamRunEvents } from './run-events';

const idParam = z.object({ id: z.string().min(1).max(100) });

export const runRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get('/:id', describeRoute({ tags: ['runs'], summary: "A run's status, result and usage (owner or admin)" }), validate('param', idParam), async (c) =>
    c.json(toRunView(await getRunFor(c.var.db, c.req.valid('param').id, currentUser(c)))),
  )
  .get(
    '/:id/events',
    describeRoute({
      tags: ['runs'],
      summary: "The run's events as an AI SDK UI message stream (SSE); replays after Last-Event-ID, then follows live",
      responses: { 200: { description: 'text/event-stream of UI message chunks; each event id is the run sequence number' } },
    }),
    validate('param', idParam),
    (c) => streamRunEvents(c, c.req.valid('param').id),
  )
  .post('/:id/cancel', describeRoute({ tags: ['runs'], summary: 'Stop a run: aborts the model call and running tools, keeps partial output' }), validate('param', idParam), async (c) => {
    const run = await getRunFor(c.var.db, c.req.valid('param').id, currentUser(c));
    if (isTerminal(run.status)) throw new ApiError(409, 'run_finished', `Run ${run.id} already ${run.status}`);
    const cancelled = await transitionRun(c.var.db, run.id, 'cancelled', { finishReason: 'cancelled' });
    if (!cancelled.ok && cancelled.reason === 'not-allowed' && cancelled.status !== 'cancelled') {
      throw new ApiError(409, 'run_finished', `Run ${run.id} already ${cancelled.status}`);
    }
    await publishCancel(c.var.redis, c.var.queues.prefix, run.id);
    // A parked or queued run wakes up, sees it was cancelled and closes its stream.
    await wakeParkedRun(c.var.queues, run);
    return c.json(toRunView(await getRunFor(c.var.db, run.id, currentUser(c))), 202);
  });
