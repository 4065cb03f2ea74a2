import {
  addGroupMember,
  createGroup,
  createGroupInputSchema,
  deleteGroup,
  getGroup,
  listGroups,
  removeGroupMember,
  updateGroup,
  updateGroupInputSchema,
} from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import { audit } from '../audit';
import type { AppEnv } from '../deps';
import { requireAdmin } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });
const memberParam = z.object({ id: z.string().min(1).max(100), userId: z.string().min(1).max(100) });

/**
 * Admin → Groups: user groups, which decide who can use the models and agents limited to them
 * (their `groupIds`; admins always can). Changes are audited.
 */
export const groupRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .get('/', describeRoute({ tags: ['groups'], summary: 'List user groups by name, with how many members each has' }), async (c) =>
    c.json({ items: await listGroups(c.get('db')) }),
  )
  .post('/', describeRoute({ tags: ['groups'], summary: 'Create a group (`name` unique, optional `description`); 409 for a taken name' }), validate('json', createGroupInputSchema), async (c) => {
    const group = await createGroup(c.get('db'), c.req.valid('json'));
    await audit(c, { action: 'group.create', targetType: 'group', targetId: group.id, details: { name: group.name } });
    return c.json(group, 201);
  })
  .get('/:id', describeRoute({ tags: ['groups'], summary: 'Get a group with its members (id, email, name)' }), validate('param', idParam), async (c) =>
    c.json(await getGroup(c.get('db'), c.req.valid('param').id)),
  )
  .patch('/:id', describeRoute({ tags: ['groups'], summary: 'Rename a group or change its description' }), validate('param', idParam), validate('json', updateGroupInputSchema), async (c) => {
    const input = c.req.valid('json');
    const group = await updateGroup(c.get('db'), c.req.valid('param').id, input);
    await audit(c, { action: 'group.update', targetType: 'group', targetId: group.id, details: { name: group.name, fields: Object.keys(input) } });
    return c.json(group);
  })
  .delete(
    '/:id',
    describeRoute({ tags: ['groups'], summary: "Delete a group and its memberships; 409 while a model or an agent is limited to it (take it out of their \"Who can use it\" first)" }),
    validate('param', idParam),
    async (c) => {
      const group = await getGroup(c.get('db'), c.req.valid('param').id);
      await deleteGroup(c.get('db'), group.id);
      await audit(c, { action: 'group.delete', targetType: 'group', targetId: group.id, details: { name: group.name } });
      return c.body(null, 204);
    },
  )
  .put('/:id/members/:userId', describeRoute({ tags: ['groups'], summary: 'Add a user to a group (already in it: no change); 404 for an unknown group or user' }), validate('param', memberParam), async (c) => {
    const { id, userId } = c.req.valid('param');
    const { group, member } = await addGroupMember(c.get('db'), id, userId);
    await audit(c, { action: 'group.member-add', targetType: 'group', targetId: id, details: { name: group, member, userId } });
    return c.body(null, 204);
  })
  .delete('/:id/members/:userId', describeRoute({ tags: ['groups'], summary: 'Take a user out of a group; 404 when they are not in it' }), validate('param', memberParam), async (c) => {
    const { id, userId } = c.req.valid('param');
    const { group, member } = await removeGroupMember(c.get('db'), id, userId);
    await audit(c, { action: 'group.member-remove', targetType: 'group', targetId: id, details: { name: group, member, userId } });
    return c.body(null, 204);
  });
