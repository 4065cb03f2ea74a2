import { createUser, createUserInputSchema, deleteUser, getUser, groupsOfUsers, listUsers, resetTwoFactor, updateUser, updateUserInputSchema, userListQuerySchema } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
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
  });
