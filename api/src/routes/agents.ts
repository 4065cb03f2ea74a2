import { changedFields, createAgent, createAgentInputSchema, deleteAgent, getAgent, listAgents, updateAgent, updateAgentInputSchema } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import { audit } from '../audit';
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
    async (c) => {
      const agent = await createAgent(c.get('db'), c.req.valid('json'));
      await audit(c, { action: 'agent.create', targetType: 'agent', targetId: agent.id, details: { name: agent.name } });
      return c.json(agent, 201);
    },
  )
  .get('/:id', describeRoute({ tags: ['agents'], summary: 'Get an agent with its model and tools' }), validate('param', idParam), async (c) =>
    c.json(await getAgent(c.get('db'), c.req.valid('param').id)),
  )
  .put(
    '/:id',
    describeRoute({ tags: ['agents'], summary: 'Update an agent; a given tools list replaces all associations' }),
    validate('param', idParam),
    validate('json', updateAgentInputSchema),
    async (c) => {
      const input = c.req.valid('json');
      const agent = await updateAgent(c.get('db'), c.req.valid('param').id, input);
      await audit(c, { action: 'agent.update', targetType: 'agent', targetId: agent.id, details: { name: agent.name, fields: changedFields(input) } });
      return c.json(agent);
    },
  )
  .delete('/:id', describeRoute({ tags: ['agents'], summary: 'Delete an agent (the default agent cannot be deleted: 409)' }), validate('param', idParam), async (c) => {
    const agent = await getAgent(c.get('db'), c.req.valid('param').id);
    await deleteAgent(c.get('db'), agent.id);
    await audit(c, { action: 'agent.delete', targetType: 'agent', targetId: agent.id, details: { name: agent.name } });
    return c.body(null, 204);
  });
