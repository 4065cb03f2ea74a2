import { publishCancel } from '@agentq/shared/run-stream';
import { getRunFor, isDependencyDown, isTerminal, toRunView, transitionRun } from '@agentq/shared/services';
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
    c.json(toRunView(await getRunFor(c.get('db'), c.req.valid('param').id, currentUser(c)))),
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
  .post(
    '/:id/cancel',
    describeRoute({
      tags: ['runs'],
      summary: 'Stop a run: aborts the model call and running tools, keeps partial output',
      description:
        'The cancel is committed to PostgreSQL first and answered 202 with the stored run, also while Redis is down (the worker then sees it at its next step, and the reconciler wakes a parked run when Redis is back). Cancelling a cancelled run again answers 202 with the stored state; a run that already succeeded or failed answers 409.',
    }),
    validate('param', idParam),
    async (c) => {
      const run = await getRunFor(c.get('db'), c.req.valid('param').id, currentUser(c));
      if (run.status === 'cancelled') return c.json(toRunView(run), 202);
      if (isTerminal(run.status)) throw new ApiError(409, 'run_finished', `Run ${run.id} already ${run.status}`);
      const cancelled = await transitionRun(c.get('db'), run.id, 'cancelled', { finishReason: 'cancelled' });
      // A run that finished between our read and the update keeps its real outcome.
      if (!cancelled.ok && cancelled.reason === 'not-allowed' && cancelled.status !== 'cancelled') {
        throw new ApiError(409, 'run_finished', `Run ${run.id} already ${cancelled.status}`);
      }
      // Best effort from here on: the cancel is stored, and whoever holds the run also checks PostgreSQL.
      await publishCancel(c.get('redis'), c.get('queues').prefix, run.id).catch((error) => {
        if (!isDependencyDown(error)) throw error;
        c.get('logger').warn({ runId: run.id, err: error }, 'cancel stored but not broadcast (Redis unavailable)');
      });
      // A parked or queued run wakes up, sees it was cancelled and closes its stream.
      await wakeParkedRun(c.get('queues'), run, c.get('logger'));
      return c.json(toRunView(await getRunFor(c.get('db'), run.id, currentUser(c))), 202);
    },
  );
