import { createModel, createModelInputSchema, deleteModel, getModel, listModels, updateModel, updateModelInputSchema } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
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
  .post('/', describeRoute({ tags: ['models'], summary: 'Create a model; apiKey is encrypted at rest with APP_SECRET' }), validate('json', createModelInputSchema), async (c) =>
    c.json(await createModel(c.get('db'), c.req.valid('json'), c.get('config').appSecret), 201),
  )
  .get('/:id', describeRoute({ tags: ['models'], summary: 'Get a model' }), validate('param', idParam), async (c) =>
    c.json(await getModel(c.get('db'), c.req.valid('param').id)),
  )
  .put(
    '/:id',
    describeRoute({ tags: ['models'], summary: 'Update a model; omit apiKey to keep it, send null to clear it' }),
    validate('param', idParam),
    validate('json', updateModelInputSchema),
    async (c) => c.json(await updateModel(c.get('db'), c.req.valid('param').id, c.req.valid('json'), c.get('config').appSecret)),
  )
  .delete('/:id', describeRoute({ tags: ['models'], summary: 'Delete a model; agents using it are left without a model' }), validate('param', idParam), async (c) => {
    await deleteModel(c.get('db'), c.req.valid('param').id);
    return c.body(null, 204);
  });
