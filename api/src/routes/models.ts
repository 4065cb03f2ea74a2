import { changedFields, createModel, createModelInputSchema, deleteModel, getModel, listModels, updateModel, updateModelInputSchema } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import { audit } from '../audit';
import type { AppEnv } from '../deps';
import { requireAdmin } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });

/** Admin CRUD for LLM endpoints; `apiKey` is write-only and answers come back with `hasApiKey` instead. */
export const modelRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .get('/', describeRoute({ tags: ['models'], summary: 'List models (the API key is never returned; see hasApiKey)' }), async (c) =>
    c.json({ items: await listModels(c.get('db')) }),
  )
  .post('/', describeRoute({ tags: ['models'], summary: 'Create a model; apiKey is encrypted at rest with APP_SECRET' }), validate('json', createModelInputSchema), async (c) => {
    const model = await createModel(c.get('db'), c.req.valid('json'), c.get('config').appSecret);
    await audit(c, { action: 'model.create', targetType: 'model', targetId: model.id, details: { name: model.name } });
    return c.json(model, 201);
  })
  .get('/:id', describeRoute({ tags: ['models'], summary: 'Get a model' }), validate('param', idParam), async (c) =>
    c.json(await getModel(c.get('db'), c.req.valid('param').id)),
  )
  .put(
    '/:id',
    describeRoute({ tags: ['models'], summary: 'Update a model; omit apiKey to keep it, send null to clear it' }),
    validate('param', idParam),
    validate('json', updateModelInputSchema),
    async (c) => {
      const input = c.req.valid('json');
      const model = await updateModel(c.get('db'), c.req.valid('param').id, input, c.get('config').appSecret);
      await audit(c, { action: 'model.update', targetType: 'model', targetId: model.id, details: { name: model.name, fields: changedFields(input) } });
      return c.json(model);
    },
  )
  .delete('/:id', describeRoute({ tags: ['models'], summary: 'Delete a model; agents using it are left without a model' }), validate('param', idParam), async (c) => {
    const model = await getModel(c.get('db'), c.req.valid('param').id);
    await deleteModel(c.get('db'), model.id);
    await audit(c, { action: 'model.delete', targetType: 'model', targetId: model.id, details: { name: model.name } });
    return c.body(null, 204);
  });
