import { fetchWebPage, MAX_PAGE_TEXT_BYTES, pageDocument, webPageUrlSchema } from '@agentq/shared/tools';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { requireUser } from '../middleware/auth';
import { validate } from '../validate';

export const readWebPageInputSchema = z.object({
  url: webPageUrlSchema,
});

/**
 * Pages a user attaches in the chat (docs/using.md "Attach a web page"): the API fetches the page the
 * way the `fetch` tool does and answers its text, which the browser attaches to the message as a
 * Markdown file, so the model reads it like an uploaded text file. Nothing is stored here.
 */
export const webPageRoutes = new Hono<AppEnv>().use(requireUser).post(
  '/read',
  describeRoute({
    tags: ['chat'],
    summary: 'Fetch a web page to attach to a message: its title and its text as Markdown',
    description: `\`url\` is an http(s) address. The page is fetched like the \`fetch\` tool fetches (public addresses only, every redirect checked, up to 1 MiB in 15 s), HTML is converted to Markdown; \`content\` (at most ${MAX_PAGE_TEXT_BYTES / 1024} KiB) starts with the title and the source address. 422 \`page_unavailable\` with the reason when the address is refused, the page answers an error, is too big or is not HTML or text. Attach \`content\` as a text file (POST /api/sessions/{id}/files) named \`fileName\`.`,
  }),
  validate('json', readWebPageInputSchema),
  async (c) => {
    const { url } = c.req.valid('json');
    const outcome = await fetchWebPage(url, { allowPrivateNetworks: c.get('config').allowPrivateNetworks ?? false, signal: c.req.raw.signal });
    if (!outcome.ok) throw new ApiError(422, 'page_unavailable', outcome.reason);
    const { title, finalUrl } = outcome.page;
    return c.json({ title, url, finalUrl, fileName: `${title.replace(/[/\\]/g, '-')}.md`, content: pageDocument(outcome.page) });
  },
);
