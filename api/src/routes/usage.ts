import { usageQuerySchema, userUsageReport } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import type { AppEnv } from '../deps';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';

/** The signed-in user's own token usage (everyone's is `GET /api/admin/usage`). */
export const usageRoutes = new Hono<AppEnv>().use(requireUser).get(
  '/',
  describeRoute({
    tags: ['chat'],
    summary: "Your chat runs' tokens (in, out, reasoning, total) by day and by model, with totals",
    description:
      '`since` (inclusive) and `until` (exclusive), ISO 8601 with an offset: the last 30 days when absent, at most 366 days. `tz` (an IANA time zone, default UTC) is the calendar the days are counted in; days without runs are left out.',
  }),
  validate('query', usageQuerySchema),
  async (c) => c.json(await userUsageReport(c.get('db'), currentUser(c).id, c.req.valid('query'))),
);
