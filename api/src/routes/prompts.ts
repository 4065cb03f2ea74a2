import { createPrompt, createPromptInputSchema, deletePrompt, listPrompts, updatePrompt, updatePromptInputSchema } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });

/** The signed-in user's saved prompts, called up in the composer with `/command`. */
export const promptRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get('/', describeRoute({ tags: ['chat'], summary: 'Your saved prompts, by command' }), async (c) => c.json({ items: await listPrompts(c.get('db'), currentUser(c).id) }))
  .post(
    '/',
    describeRoute({ tags: ['chat'], summary: 'Save a prompt: `command` (what follows the /), `title`, `content` (`{{name}}` marks what to fill in); 409 when the command is taken' }),
    validate('json', createPromptInputSchema),
    async (c) => c.json(await createPrompt(c.get('db'), currentUser(c).id, c.req.valid('json')), 201),
  )
  .patch('/:id', describeRoute({ tags: ['chat'], summary: 'Change a saved prompt' }), validate('param', idParam), validate('json', updatePromptInputSchema), async (c) =>
    c.json(await updatePrompt(c.get('db'), currentUser(c).id, c.req.valid('param').id, c.req.valid('json'))),
  )
  .delete('/:id', describeRoute({ tags: ['chat'], summary: 'Delete a saved prompt' }), validate('param', idParam), async (c) => {
    await deletePrompt(c.get('db'), currentUser(c).id, c.req.valid('param').id);
    return c.body(null, 204);
  });
