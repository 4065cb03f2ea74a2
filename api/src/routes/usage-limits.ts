import { usageLimitDefaultsSchema } from '@agentq/shared/api-types';
import { getUsageLimitDefaults, listUserUsageLimits, setUsageLimitDefaults } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { audit } from '../audit';
import type { AppEnv } from '../deps';
import { requireAdmin } from '../middleware/auth';
import { validate } from '../validate';

/** Everyone's default token limits and the users' overrides (admins); a user's own are `GET /api/usage/limits`. */
export const usageLimitRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .get(
    '/',
    describeRoute({
      tags: ['users'],
      summary: 'The default token limits (per UTC day and month; null: none) and every override users have',
      description: 'Overrides list only users who have one: per period a number of tokens, `"unlimited"`, or `"default"`. Admins are held to the defaults only through an override of their own.',
    }),
    async (c) => {
      const [defaults, overrides] = await Promise.all([getUsageLimitDefaults(c.get('db')), listUserUsageLimits(c.get('db'))]);
      return c.json({ defaults, overrides });
    },
  )
  .put(
    '/',
    describeRoute({
      tags: ['users'],
      summary: 'Set the default token limits: `perDay` and `perMonth`, each a whole number of tokens (at least 1) or null for no limit',
      description: 'Applies to every user without an override, admins excepted, from their next send; runs already going finish.',
    }),
    validate('json', usageLimitDefaultsSchema),
    async (c) => {
      const defaults = await setUsageLimitDefaults(c.get('db'), c.req.valid('json'));
      await audit(c, { action: 'usage-limit.update-default', targetType: 'usage-limit', targetId: 'default', details: { ...defaults } });
      return c.json(defaults);
    },
  );
