import { chatTagNameSchema, renameChatTagInputSchema } from '@agentq/shared/api-types';
import { deleteChatTag, listChatTags, renameChatTag } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';

const nameParam = z.object({ name: chatTagNameSchema });

/** The signed-in user's tags of chats (a chat is tagged with PUT /api/sessions/:id/tags). */
export const chatTagRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get('/', describeRoute({ tags: ['chat'], summary: 'Your tags of chats, by name, with how many chats carry each (a tag no chat carries is gone)' }), async (c) =>
    c.json({ items: await listChatTags(c.get('db'), currentUser(c).id) }),
  )
  .patch(
    '/:name',
    describeRoute({ tags: ['chat'], summary: 'Rename a tag on every chat that carries it (`name`); into a tag you already have, the two merge. 404 for a tag you do not have' }),
    validate('param', nameParam),
    validate('json', renameChatTagInputSchema),
    async (c) => c.json(await renameChatTag(c.get('db'), currentUser(c).id, c.req.valid('param').name, c.req.valid('json'))),
  )
  .delete('/:name', describeRoute({ tags: ['chat'], summary: 'Take a tag off every chat that carries it' }), validate('param', nameParam), async (c) => {
    await deleteChatTag(c.get('db'), currentUser(c).id, c.req.valid('param').name);
    return c.body(null, 204);
  });
