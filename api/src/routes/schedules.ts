import { newId } from '@agentq/shared/ids';
import { removeScheduleJob, upsertScheduleJob } from '@agentq/shared/queues';
import { createSchedule, createScheduleInputSchema, deleteSchedule, fireSchedule, getSchedule, listSchedules, updateSchedule, updateScheduleInputSchema, type ScheduleView } from '@agentq/shared/services';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { currentAsker, currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';
import { enqueueStartedRun } from './sessions';
import { enforceUsageLimit } from '../usage-limit';

const idParam = z.object({ id: z.string().min(1).max(100) });
const idempotencyHeader = z.object({ 'idempotency-key': z.string().min(1).max(200).optional() });

/**
 * Keeps the schedule's BullMQ Job Scheduler in step with its row: there while enabled, gone
 * otherwise. The row is saved either way: with Redis down, the worker's reconciler adds or removes
 * the scheduler once it is back (and a fire of a disabled schedule is skipped meanwhile).
 */
async function syncScheduler(c: Context<AppEnv>, schedule: Pick<ScheduleView, 'id' | 'enabled' | 'cron' | 'timezone'>): Promise<void> {
  try {
    if (schedule.enabled) await upsertScheduleJob(c.get('queues'), schedule);
    else await removeScheduleJob(c.get('queues'), schedule.id);
  } catch (error) {
    c.var.logger.warn({ err: error, scheduleId: schedule.id }, 'could not update the schedule\'s job scheduler; the reconciler will');
  }
}

/** The signed-in user's scheduled prompts: a prompt sent to an agent on a cron schedule. */
export const scheduleRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get('/', describeRoute({ tags: ['chat'], summary: 'Your schedules, each with its next fire (`nextRunAt`) and its last run' }), async (c) =>
    c.json({ items: await listSchedules(c.get('db'), currentUser(c).id) }),
  )
  .post(
    '/',
    describeRoute({
      tags: ['chat'],
      summary: 'Schedule a prompt',
      description:
        '`cron`: 5 fields, or 6 with seconds first, read in `timezone` (IANA, default UTC); more often than once a minute only for admins. `target`: `new-chat` (a chat titled "<name> · <date>" per fire) or `same-chat` (one chat, created on the first fire). `agentId` and `modelId` are checked as a send checks them. At most 20 per user (409).',
    }),
    validate('json', createScheduleInputSchema),
    async (c) => {
      const schedule = await createSchedule(c.get('db'), currentAsker(c), c.req.valid('json'));
      await syncScheduler(c, schedule);
      return c.json(schedule, 201);
    },
  )
  .get('/:id', describeRoute({ tags: ['chat'], summary: 'One of your schedules' }), validate('param', idParam), async (c) =>
    c.json(await getSchedule(c.get('db'), currentUser(c).id, c.req.valid('param').id)),
  )
  .patch(
    '/:id',
    describeRoute({ tags: ['chat'], summary: 'Change a schedule; `enabled: false` stops its fires, `true` starts them again' }),
    validate('param', idParam),
    validate('json', updateScheduleInputSchema),
    async (c) => {
      const schedule = await updateSchedule(c.get('db'), currentAsker(c), c.req.valid('param').id, c.req.valid('json'));
      await syncScheduler(c, schedule);
      return c.json(schedule);
    },
  )
  .delete('/:id', describeRoute({ tags: ['chat'], summary: 'Delete a schedule (its chats stay)' }), validate('param', idParam), async (c) => {
    const { id } = c.req.valid('param');
    await deleteSchedule(c.get('db'), currentUser(c).id, id);
    await syncScheduler(c, { id, enabled: false, cron: '', timezone: '' });
    return c.body(null, 204);
  })
  .post(
    '/:id/run',
    describeRoute({ tags: ['chat'], summary: 'Run now: fire the schedule once (even while disabled); 202 with the run and its chat, 409 while that chat still has a run going, 429 `usage_limit` when your token limit is reached' }),
    validate('param', idParam),
    validate('header', idempotencyHeader),
    async (c) => {
      const key = c.req.valid('header')['idempotency-key'];
      const fire = await fireSchedule(c.get('db'), c.req.valid('param').id, { fireId: `run-now:${key ?? newId('run')}`, manual: { userId: currentUser(c).id }, admit: () => enforceUsageLimit(c) });
      if (fire.status === 'skipped') throw new ApiError(409, 'conflict', fire.reason);
      await enqueueStartedRun(c, fire);
      return c.json({ runId: fire.run.id, sessionId: fire.sessionId, eventsUrl: `/api/runs/${fire.run.id}/events`, status: fire.run.status }, 202);
    },
  );
