import {
  approvalQuerySchema,
  countPendingApprovals,
  decideApproval,
  decideApprovalInputSchema,
  getApprovalFor,
  listApprovals,
} from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { currentUser, requireUser } from '../middleware/auth';
import { wakeParkedRun } from '../resume-run';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });

export const approvalRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get(
    '/',
    describeRoute({
      tags: ['approvals'],
      summary: 'Your approvals (an admin sees all); filter by status and run',
      description: '`status=pending` lists the first to expire first; `status=decided` (every status but pending) the latest decision first; otherwise newest first. At most `limit` (1-500, default 500); `total` counts every match.',
    }),
    validate('query', approvalQuerySchema),
    async (c) => c.json(await listApprovals(c.get('db'), currentUser(c), c.req.valid('query'))),
  )
  .get('/count', describeRoute({ tags: ['approvals'], summary: 'How many approvals wait for you (the navigation badge)' }), async (c) =>
    c.json({ pending: await countPendingApprovals(c.get('db'), currentUser(c)) }),
  )
  .get('/:id', describeRoute({ tags: ['approvals'], summary: 'One approval (owner or admin)' }), validate('param', idParam), async (c) =>
    c.json(await getApprovalFor(c.get('db'), c.req.valid('param').id, currentUser(c))),
  )
  .post(
    '/:id',
    describeRoute({
      tags: ['approvals'],
      summary: 'Approve (optionally with edited input, optionally for the rest of the session) or deny with a reason; resumes the run at once',
      description:
        'A decision moves the approval out of pending exactly once and is committed to PostgreSQL before the run is woken: the answer is 200 with the stored approval even while Redis is down (the reconciler resumes the run when Redis is back). Repeating the same decision answers 200 with the stored state; a different decision, or one after expiry, answers 409.',
    }),
    validate('param', idParam),
    validate('json', decideApprovalInputSchema),
    async (c) => {
      const { approval, run } = await decideApproval(c.get('db'), c.req.valid('param').id, currentUser(c), c.req.valid('json'));
      await wakeParkedRun(c.get('queues'), run, c.get('logger'));
      return c.json(approval);
    },
  );
