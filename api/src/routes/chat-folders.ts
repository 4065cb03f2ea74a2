import { chatFolderInputSchema, createChatFolder, deleteChatFolder, listChatFolders, renameChatFolder } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });

/** The signed-in user's folders of chats (a chat is filed with PATCH /api/sessions/:id {folderId}). */
export const chatFolderRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get('/', describeRoute({ tags: ['chat'], summary: 'Your chat folders, by name, with how many chats each holds' }), async (c) =>
    c.json({ items: await listChatFolders(c.get('db'), currentUser(c).id) }),
  )
  .post('/', describeRoute({ tags: ['chat'], summary: 'Make a folder (`name`); 409 when you have one of that name' }), validate('json', chatFolderInputSchema), async (c) =>
    c.json(await createChatFolder(c.get('db'), currentUser(c).id, c.req.valid('json')), 201),
  )
  .patch('/:id', describeRoute({ tags: ['chat'], summary: 'Rename a folder' }), validate('param', idParam), validate('json', chatFolderInputSchema), async (c) =>
    c.json(await renameChatFolder(c.get('db'), currentUser(c).id, c.req.valid('param').id, c.req.valid('json'))),
  )
  .delete('/:id', describeRoute({ tags: ['chat'], summary: 'Delete a folder; its chats go back to the list' }), validate('param', idParam), async (c) => {
    await deleteChatFolder(c.get('db'), currentUser(c).id, c.req.valid('param').id);
    return c.body(null, 204);
  });
