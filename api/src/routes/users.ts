import { createUser, createUserInputSchema, deleteUser, getUser, listUsers, updateUser, updateUserInputSchema } from '@agentq/shared/services';
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
  .get('/', describeRoute({ tags: ['users'], summary: 'List users' }), async (c) => c.json({ items: await listUsers(c.get('db')) }))
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
  .delete('/:id', describeRoute({ tags: ['users'], summary: 'Delete a user' }), validate('param', idParam), async (c) => {
    await deleteUser(c.get('db'), c.req.valid('param').id, currentUser(c).id);
    return c.body(null, 204);
  });
