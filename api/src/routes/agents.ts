import { createAgent, createAgentInputSchema, deleteAgent, getAgent, listAgents, updateAgent, updateAgentInputSchema } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { requireAdmin } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });

/** Admin CRUD for agents with their tool associations (`tools: [{ toolId, needsApproval }]`). */
export const agentRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .get('/', describeRoute({ tags: ['agents'], summary: 'List agents with their model and tools; the default agent first' }), async (c) =>
    c.json({ items: await listAgents(c.get('db')) }),
  )
  .post(
    '/',
    describeRoute({ tags: ['agents'], summary: 'Create an agent; isDefault takes the default flag from the previous default agent' }),
    validate('json', createAgentInputSchema),
    async (c) => c.json(await createAgent(c.get('db'), c.req.valid('json')), 201),
  )
  .get('/:id', describeRoute({ tags: ['agents'], summary: 'Get an agent with its model and tools' }), validate('param', idParam), async (c) =>
    c.json(await getAgent(c.get('db'), c.req.valid('param').id)),
  )
  .put(
    '/:id',
    describeRoute({ tags: ['agents'], summary: 'Update an agent; a given tools list replaces all associations' }),
    validate('param', idParam),
    validate('json', updateAgentInputSchema),
    async (c) => c.json(await updateAgent(c.get('db'), c.req.valid('param').id, c.req.valid('json'))),
  )
  .delete('/:id', describeRoute({ tags: ['agents'], summary: 'Delete an agent (the default agent cannot be deleted: 409)' }), validate('param', idParam), async (c) => {
    await deleteAgent(c.get('db'), c.req.valid('param').id);
    return c.body(null, 204);
  });
