import { createUser, createUserInputSchema, deleteUser, getUser, groupsOfUsers, listUsers, resetTwoFactor, updateUser, updateUserInputSchema, userListQuerySchema } from '@agentq/shared/services';
import { userUsageLimitsSchema } from '@agentq/shared/api-types';
import { getUserUsageLimits, setUserUsageLimits } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import { audit } from '../audit';
import type { AppEnv } from '../deps';
import { currentUser, requireAdmin } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });

/** Admin user management. */
export const userRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .get(
    '/',
    describeRoute({
      tags: ['users'],
      summary: 'List users',
      description: "Newest first, each with `groups` (id, name) they are in. `q` finds users whose email or name holds every word; `limit` (1-200, default 50) per page; pass a page's `nextCursor` as `cursor` for the next one (null on the last page). `total` counts every match.",
    }),
    validate('query', userListQuerySchema),
    async (c) => {
      const page = await listUsers(c.get('db'), c.req.valid('query'));
      const groups = await groupsOfUsers(c.get('db'), page.items.map((user) => user.id));
      return c.json({ ...page, items: page.items.map((user) => ({ ...user, groups: groups.get(user.id) ?? [] })) });
    },
  )
  .post('/', describeRoute({ tags: ['users'], summary: 'Create a user' }), validate('json', createUserInputSchema), async (c) =>
    c.json(await createUser(c.get('db'), c.req.valid('json'), currentUser(c).id), 201),
  )
  .get('/:id', describeRoute({ tags: ['users'], summary: 'Get a user' }), validate('param', idParam), async (c) =>
    c.json(await getUser(c.get('db'), c.req.valid('param').id)),
  )
  .patch('/:id', describeRoute({ tags: ['users'], summary: 'Change name, role or password' }), validate('param', idParam), validate('json', updateUserInputSchema), async (c) => {
    const credential = c.get('credential');
    return c.json(await updateUser(c.get('db'), c.req.valid('param').id, c.req.valid('json'), currentUser(c).id, credential?.kind === 'session' ? credential.token : undefined));
  })
  .delete('/:id/two-factor', describeRoute({ tags: ['users'], summary: "Reset a user's two-factor sign-in (a lost phone and lost recovery codes): they sign in with their password alone until they set it up again; audited" }), validate('param', idParam), async (c) => {
    await resetTwoFactor(c.get('db'), currentUser(c).id, c.req.valid('param').id);
    return c.body(null, 204);
  })
  .delete('/:id', describeRoute({ tags: ['users'], summary: 'Delete a user' }), validate('param', idParam), async (c) => {
    await deleteUser(c.get('db'), c.req.valid('param').id, currentUser(c).id);
    return c.body(null, 204);
  })
  .get(
    '/:id/usage-limits',
    describeRoute({ tags: ['users'], summary: "A user's token limit override per UTC day and month: a number of tokens, \"unlimited\", or \"default\" (the default limits apply)" }),
    validate('param', idParam),
    async (c) => c.json(await getUserUsageLimits(c.get('db'), c.req.valid('param').id)),
  )
  .put(
    '/:id/usage-limits',
    describeRoute({
      tags: ['users'],
      summary: "Set a user's token limit override: `perDay` and `perMonth`, each a whole number of tokens (at least 1), \"unlimited\", or \"default\"",
      description: 'An override is the only way an admin is held to a limit. It applies from the next send; runs already going finish.',
    }),
    validate('param', idParam),
    validate('json', userUsageLimitsSchema),
    async (c) => {
      const { id } = c.req.valid('param');
      const limits = await setUserUsageLimits(c.get('db'), id, c.req.valid('json'));
      await audit(c, { action: 'usage-limit.update-user', targetType: 'user', targetId: id, details: { ...limits } });
      return c.json(limits);
    },
  );
