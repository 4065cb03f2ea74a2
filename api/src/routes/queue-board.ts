import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { queueCatalog, type QueueKey, type Queues } from '@agentq/shared/queues';
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';

export const QUEUE_BOARD_PATH = '/admin/queues';

/** Admins only. A browser that is not signed in is sent to the login page and back; a non-admin's browser to the 403 page. */
export const queueBoardAccess = createMiddleware<AppEnv>(async function queueBoardAccess(c, next) {
  const user = c.get('user');
  if (!user) {
    if (c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html')) {
      return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 302);
    }
    throw new ApiError(401, 'unauthorized', 'Sign in as an administrator to use the queue board');
  }
  if (user.role !== 'admin') {
    // A person in a browser gets the web app's styled 403 page, not a JSON body.
    if (c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html')) {
      return c.redirect(`/forbidden?page=${encodeURIComponent(c.req.path)}`, 302);
    }
    throw new ApiError(403, 'forbidden', 'The queue board is for administrators');
  }
  return next();
});

/** A user's own words as the board shows them: their length only. */
const notShown = (words: string) => `(${words.length} characters, not shown)`;

/**
 * A job's data as the board shows it: a first question's opening (ChatRunOpening) without the
 * user's own words — the question, the chat's system prompt and their custom instructions — which
 * are not the operator's to read.
 */
function withoutUsersWords(data: unknown): unknown {
  const opening = (data as { opening?: { question?: unknown; options?: Record<string, unknown> } } | null)?.opening;
  if (typeof opening?.question !== 'string') return data;
  const options = { ...opening.options };
  for (const key of ['systemPrompt', 'userInstructions']) if (typeof options[key] === 'string') options[key] = notShown(options[key]);
  return { ...(data as object), opening: { ...opening, question: notShown(opening.question), options } };
}

/**
 * bull-board for every catalog queue, to be mounted at /admin/queues. Its page and assets are served
 * from node_modules through the mount path; the one third-party request it makes (Google Fonts) is
 * dropped, so the board works offline and tells no one who is looking.
 */
export function queueBoardRoutes(queues: Queues) {
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: (Object.keys(queueCatalog) as QueueKey[]).map((key) => {
      const board = new BullMQAdapter(queues[key]);
      board.setFormatter('data', withoutUsersWords);
      return board;
    }),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'agentq queues' } },
  });
  const board = adapter.registerPlugin();
  return new Hono<AppEnv>()
    .use(async function withoutThirdPartyFonts(c, next) {
      await next();
      if (!c.res.headers.get('content-type')?.includes('text/html')) return;
      const html = (await c.res.text()).replace(/<link[^>]+fonts\.googleapis\.com[^>]*>/g, '');
      const headers = new Headers(c.res.headers);
      headers.delete('content-length');
      c.res = new Response(html, { status: c.res.status, headers });
    })
    .route('/', board as unknown as Hono<AppEnv>);
}
