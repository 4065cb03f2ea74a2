import { copySharedChat, getSharedChatFile, listChatShares, readSharedChat } from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { currentUser, requireUser } from '../middleware/auth';
import { validate } from '../validate';
import { chatFileResponse } from './chat-files';

/** A link's secret as shareChat makes it (22 base64url characters); anything else is no link. */
const shareParam = z.object({ shareId: z.string().regex(/^[A-Za-z0-9_-]{22}$/, 'Not a shared link') });
const sharedFileParam = shareParam.extend({ fileId: z.string().min(1).max(100) });

/**
 * Chats shared by link (a chat's own link is made, updated and taken down on `/api/sessions/:id/share`):
 * any signed-in user with the link reads it or saves a copy of it; each user lists their own links.
 */
export const sharedChatRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get('/', describeRoute({ tags: ['chat'], summary: 'Your shared links, most recently updated first' }), async (c) => c.json({ items: await listChatShares(c.get('db'), currentUser(c).id) }))
  .get(
    '/:shareId',
    describeRoute({ tags: ['chat'], summary: 'A shared chat, as it was when shared (or last updated): for anyone signed in with the link; 404 once it is taken down' }),
    validate('param', shareParam),
    async (c) => c.json(await readSharedChat(c.get('db'), c.req.valid('param').shareId, currentUser(c).id)),
  )
  .get(
    '/:shareId/files/:fileId',
    describeRoute({ tags: ['chat'], summary: "A file a shared chat's question carried (an image inline, any other file as a download); 404 for a file the link does not show" }),
    validate('param', sharedFileParam),
    async (c) => {
      const { shareId, fileId } = c.req.valid('param');
      return chatFileResponse(c, await getSharedChatFile(c.get('db'), shareId, fileId));
    },
  )
  .post(
    '/:shareId/copy',
    describeRoute({ tags: ['chat'], summary: 'Save a shared chat to your own chats, to go on with it (201 with the new chat); its files are copied with it' }),
    validate('param', shareParam),
    async (c) => c.json(await copySharedChat(c.get('db'), c.req.valid('param').shareId, currentUser(c).id), 201),
  );
