import { usageLimitStatus, usageQuerySchema, userUsageReport } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import type { AppEnv } from '../deps';
import { currentUser, requireUser } from '../middleware/auth';
import { usageDeps } from '../usage-limit';
import { validate } from '../validate';

/** The signed-in user's own token usage (everyone's is `GET /api/admin/usage`). */
export const usageRoutes = new Hono<AppEnv>().use(requireUser).get(
  '/',
  describeRoute({
    tags: ['chat'],
    summary: "Your chat runs' tokens (in, out, reasoning, total) and cost by day and by model, with totals",
    description:
      '`since` (inclusive) and `until` (exclusive), ISO 8601 with an offset: the last 30 days when absent, at most 366 days. `tz` (an IANA time zone, default UTC) is the calendar the days are counted in; days without runs are left out.',
  }),
  validate('query', usageQuerySchema),
  async (c) => c.json(await userUsageReport(c.get('db'), currentUser(c).id, c.req.valid('query'))),
)
  .get(
    '/limits',
    describeRoute({
      tags: ['chat'],
      summary: 'The token limits that hold for you, each with what you spent in its current period (UTC day or month) and when it resets; empty when none does',
      description: 'A send is refused (429 `usage_limit`) once `spent` reaches `limit`, until `resetsAt`. A run already going finishes, so `spent` can pass `limit` by one run.',
    }),
    async (c) => {
      const user = currentUser(c);
      return c.json({ limits: await usageLimitStatus(usageDeps(c), { id: user.id, isAdmin: user.role === 'admin' }) });
    },
  );
