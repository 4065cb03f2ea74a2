import {
  activeBannersFor,
  changedFields,
  createBanner,
  createBannerInputSchema,
  deleteBanner,
  dismissBanner,
  listBanners,
  updateBanner,
  updateBannerInputSchema,
} from '@agentq/shared/services';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import { audit } from '../audit';
import type { AppEnv } from '../deps';
import { currentUser, requireAdmin, requireUser } from '../middleware/auth';
import { validate } from '../validate';

const idParam = z.object({ id: z.string().min(1).max(100) });

/** The announcement banners the signed-in user sees; the web app reads them once per page load. */
export const bannerRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .get(
    '/',
    describeRoute({ tags: ['banners'], summary: 'The banners to show you now, newest first: enabled, inside their window, not dismissed by you (a changed text shows again)' }),
    async (c) => c.json({ items: await activeBannersFor(c.get('db'), currentUser(c).id) }),
  )
  .post(
    '/:id/dismiss',
    describeRoute({ tags: ['banners'], summary: 'Close a dismissible banner for you, on every device, until its text changes; 400 when it is not dismissible, 404 when it is not showing' }),
    validate('param', idParam),
    async (c) => {
      await dismissBanner(c.get('db'), currentUser(c).id, c.req.valid('param').id);
      return c.body(null, 204);
    },
  );

/** Admin → Banners: post, edit and delete announcements. Changes are audited. */
export const adminBannerRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .get('/', describeRoute({ tags: ['banners'], summary: 'Every banner, the newest first, whether showing or not' }), async (c) => c.json({ items: await listBanners(c.get('db')) }))
  .post(
    '/',
    describeRoute({
      tags: ['banners'],
      summary: 'Post a banner: `text` (inline Markdown, up to 500 characters), `kind` (info, success, warning, error; default info), `dismissible` (default true), `startsAt`/`endsAt` (ISO 8601 or null), `enabled` (default true)',
    }),
    validate('json', createBannerInputSchema),
    async (c) => {
      const banner = await createBanner(c.get('db'), c.req.valid('json'));
      await audit(c, { action: 'banner.create', targetType: 'banner', targetId: banner.id, details: { kind: banner.kind, text: banner.text } });
      return c.json(banner, 201);
    },
  )
  .patch(
    '/:id',
    describeRoute({ tags: ['banners'], summary: 'Change any of a banner\'s fields; a new text shows it again to users who dismissed it' }),
    validate('param', idParam),
    validate('json', updateBannerInputSchema),
    async (c) => {
      const input = c.req.valid('json');
      const banner = await updateBanner(c.get('db'), c.req.valid('param').id, input);
      await audit(c, { action: 'banner.update', targetType: 'banner', targetId: banner.id, details: { text: banner.text, fields: changedFields(input) } });
      return c.json(banner);
    },
  )
  .delete('/:id', describeRoute({ tags: ['banners'], summary: 'Delete a banner' }), validate('param', idParam), async (c) => {
    const banner = await deleteBanner(c.get('db'), c.req.valid('param').id);
    await audit(c, { action: 'banner.delete', targetType: 'banner', targetId: banner.id, details: { text: banner.text } });
    return c.body(null, 204);
  });
