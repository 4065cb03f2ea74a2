import { listWorkerHeartbeats, queueCatalog, type QueueKey } from '@agentq/shared/queues';
import { auditQuerySchema, feedbackListQuerySchema, feedbackSummary, feedbackWindowSchema, listAuditEvents, listFeedback, reindexKnowledgeFiles, usageQuerySchema, usageReport } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import { audit } from '../audit';
import type { AppEnv } from '../deps';
import { requireAdmin } from '../middleware/auth';
import { discardFailedJob, listFailedJobs, retryFailedJob } from '../operations/failed-jobs';
import { queueOverview } from '../operations/queue-overview';
import { adminRunDetail, adminRunsQuerySchema, listAdminRuns } from '../operations/run-reports';
import { queueThroughput } from '../operations/throughput';
import { validate } from '../validate';
import { enqueueIngestions } from './knowledge';

const queueNames = Object.values(queueCatalog).map((definition) => definition.name) as [string, ...string[]];
const throughputQuery = z.object({ minutes: z.coerce.number().int().min(1).max(24 * 60).default(60) });
const failedQuery = z.object({ queue: z.enum(queueNames).optional(), limit: z.coerce.number().int().min(1).max(100).default(20) });
const jobParam = z.object({ queue: z.string().min(1).max(100), id: z.string().min(1).max(200) });
const idParam = z.object({ id: z.string().min(1).max(100) });
const overviewQuery = z.object({
  minutes: throughputQuery.shape.minutes,
  failedLimit: failedQuery.shape.limit,
});

/** Worker processes (their heartbeats) and BullMQ's own count of worker connections per queue. */
async function workersView({ redis, queues }: Pick<AppEnv['Variables'], 'redis' | 'queues'>) {
  const now = Date.now();
  const [heartbeats, connections] = await Promise.all([
    listWorkerHeartbeats(redis, queues.prefix),
    Promise.all((Object.keys(queueCatalog) as QueueKey[]).map(async (key) => ({ queue: queues[key].name, workers: await queues[key].getWorkersCount() }))),
  ]);
  return {
    items: heartbeats.map((heartbeat) => ({
      ...heartbeat,
      uptimeMs: now - new Date(heartbeat.startedAt).getTime(),
      lastSeenMsAgo: now - new Date(heartbeat.lastSeenAt).getTime(),
    })),
    connections,
  };
}

/** The operators' dashboard API (SPEC §7 worker dashboard): admins only. */
export const adminRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .get(
    '/overview',
    describeRoute({ tags: ['operations'], summary: 'Everything the worker dashboard polls: queue counts, throughput per minute, workers online, recent failures' }),
    validate('query', overviewQuery),
    async (c) => {
      const { minutes, failedLimit } = c.req.valid('query');
      const [queues, throughput, workers, failedJobs] = await Promise.all([
        queueOverview(c.get('db'), c.get('queues')),
        queueThroughput(c.get('queues'), minutes),
        workersView(c.var),
        listFailedJobs(c.get('queues'), { limit: failedLimit }),
      ]);
      return c.json({ queues, throughput, workers, failedJobs, at: new Date().toISOString() });
    },
  )
  .get(
    '/audit',
    describeRoute({
      tags: ['operations'],
      summary: 'The audit log, the latest first: sign-ins, user and token management, approval decisions, changes to models, agents and tools, shared links',
      description:
        "`action` filters by a category (`auth`, `user`, `api-token`, `approval`, `model`, `agent`, `tool`, `chat`) or one action (`model.update`); `actorUserId`, `targetId`, `since` and `until` (ISO 8601, since inclusive, until exclusive) filter too; `limit` (1-200, default 50) per page, a page's `nextCursor` as `cursor` for the next. `details` names what changed, never a secret's value.",
    }),
    validate('query', auditQuerySchema),
    async (c) => c.json(await listAuditEvents(c.get('db'), c.req.valid('query'))),
  )
  .get(
    '/feedback',
    describeRoute({
      tags: ['operations'],
      summary: "Users' ratings of answers, the latest first: who, the chat, the run, the comment and the start of the answer",
      description:
        "`rating` (up or down), `agentId` and `modelId` (of the run that wrote the answer), `since` and `until` (when the rating was given or last changed: ISO 8601, since inclusive, until exclusive) filter; `limit` (1-200, default 50) per page, a page's `nextCursor` as `cursor` for the next. `counts` are the ratings of that agent and model (every one's without them), by kind.",
    }),
    validate('query', feedbackListQuerySchema),
    async (c) => c.json(await listFeedback(c.get('db'), c.req.valid('query'))),
  )
  .get(
    '/feedback/summary',
    describeRoute({ tags: ['operations'], summary: 'Every rating counted by the agent and model of the run that wrote the answer, the most bad ones first; `since` and `until` as for the list' }),
    validate('query', feedbackWindowSchema),
    async (c) => c.json({ items: await feedbackSummary(c.get('db'), c.req.valid('query')) }),
  )
  .get(
    '/usage',
    describeRoute({
      tags: ['operations'],
      summary: "Everyone's chat runs' tokens (in, out, reasoning, total) and cost by day, by model and by user, with totals",
      description:
        '`since` (inclusive) and `until` (exclusive), ISO 8601 with an offset: the last 30 days when absent, at most 366 days. `tz` (an IANA time zone, default UTC) is the calendar the days are counted in; days without runs are left out. Models and users come with the most tokens first; a deleted model keeps its id, without a name.',
    }),
    validate('query', usageQuerySchema),
    async (c) => c.json(await usageReport(c.get('db'), c.req.valid('query'))),
  )
  .get(
    '/queues',
    describeRoute({
      tags: ['operations'],
      summary: 'Job counts per queue: waiting, active, delayed, parked for approval, failed, completed (states partition the jobs; parked = runs awaiting approval)',
    }),
    async (c) => c.json({ items: await queueOverview(c.get('db'), c.get('queues')) }),
  )
  .get(
    '/throughput',
    describeRoute({ tags: ['operations'], summary: 'Completed and failed jobs per minute for each queue over the last `minutes` minutes, oldest first' }),
    validate('query', throughputQuery),
    async (c) => c.json(await queueThroughput(c.get('queues'), c.req.valid('query').minutes)),
  )
  .get(
    '/workers',
    describeRoute({ tags: ['operations'], summary: 'Worker processes online (heartbeat: host, pid, concurrency, uptime) and BullMQ worker connections per queue' }),
    async (c) => c.json(await workersView(c.var)),
  )
  .get(
    '/jobs/failed',
    describeRoute({ tags: ['operations'], summary: 'Most recently failed jobs across queues (or one queue), newest first' }),
    validate('query', failedQuery),
    async (c) => c.json(await listFailedJobs(c.get('queues'), c.req.valid('query'))),
  )
  .post(
    '/knowledge/reindex',
    describeRoute({
      tags: ['knowledge'],
      summary: "Every user's knowledge files the current embedding model did not embed, and the failed ones, processed again; 202 with how many were queued",
      description: 'After flagging a model "Embeds text" for the first time, or replacing the one that was: passages embedded by no model or another one are skipped by vector search until then. Each file costs one embeddings call per 64 passages. Audited.',
    }),
    async (c) => {
      const outcome = await reindexKnowledgeFiles(c.get('db'), 'all', enqueueIngestions(c));
      await audit(c, { action: 'model.reindex-knowledge', targetType: 'knowledge', targetId: 'all', details: outcome });
      return c.json(outcome, 202);
    },
  )
  .post(
    '/jobs/:queue/:id/retry',
    describeRoute({ tags: ['operations'], summary: 'Retry a failed job with a fresh attempt budget (409 unless it is failed)' }),
    validate('param', jobParam),
    async (c) => {
      const { queue, id } = c.req.valid('param');
      return c.json(await retryFailedJob(c.get('queues'), queue, id));
    },
  )
  .delete(
    '/jobs/:queue/:id',
    describeRoute({ tags: ['operations'], summary: 'Discard (remove) a failed job (409 unless it is failed)' }),
    validate('param', jobParam),
    async (c) => {
      const { queue, id } = c.req.valid('param');
      await discardFailedJob(c.get('queues'), queue, id);
      return c.body(null, 204);
    },
  )
  .get(
    '/runs',
    describeRoute({ tags: ['operations'], summary: "Every user's runs, newest first: status, owner email, agent, created, duration, steps, tokens; filter by status, kind and user" }),
    validate('query', adminRunsQuerySchema),
    async (c) => c.json(await listAdminRuns(c.get('db'), c.req.valid('query'))),
  )
  .get(
    '/runs/:id',
    describeRoute({ tags: ['operations'], summary: 'One run for operators: the run, its step timeline (model latency, tokens, tool calls, approval waits), tool logs and approvals' }),
    validate('param', idParam),
    async (c) => c.json(await adminRunDetail(c.get('db'), c.req.valid('param').id)),
  );
