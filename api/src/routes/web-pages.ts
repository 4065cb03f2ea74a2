import { fetchWebPage, MAX_PAGE_TEXT_BYTES, pageDocument, webPageUrlSchema } from '@agentq/shared/tools';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { z } from 'zod';
import type { Context } from 'hono';
import type { AppEnv } from '../deps';
import { ApiError } from '../errors';
import { currentUser, requireUser } from '../middleware/auth';
import { takeRateLimit, type RateLimit } from '../security/rate-limit';
import { validate } from '../validate';

/** Pages one user may have the server fetch per minute, attached or added to knowledge bases alike. */
export const DEFAULT_WEB_PAGE_RATE_LIMIT: RateLimit = { max: 30, windowSeconds: 60 };

/**
 * Counts `pages` fetches by the signed-in user against their per-minute budget, or answers 429:
 * the server fetches public pages on a user's word, and must not become anyone's crawler.
 */
export async function takeWebPageFetches(c: Context<AppEnv>, pages: number): Promise<void> {
  const limit = c.get('config').webPageRateLimit ?? DEFAULT_WEB_PAGE_RATE_LIMIT;
  const decision = await takeRateLimit(c.get('redis'), c.get('queues').prefix, 'web-pages', currentUser(c).id, limit, pages);
  if (!decision.allowed) {
    c.header('retry-after', String(decision.retryAfterSeconds));
    throw new ApiError(429, 'rate_limited', `Too many web pages fetched: at most ${limit.max} a minute; try again in ${decision.retryAfterSeconds} s`);
  }
}

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
    description: `\`url\` is an http(s) address; each user may have ${DEFAULT_WEB_PAGE_RATE_LIMIT.max} pages a minute fetched (429 \`rate_limited\` with Retry-After past it, pages added to knowledge bases included). The page is fetched like the \`fetch\` tool fetches (public addresses only, every redirect checked, up to 1 MiB in 15 s), HTML is converted to Markdown; \`content\` (at most ${MAX_PAGE_TEXT_BYTES / 1024} KiB) starts with the title and the source address. 422 \`page_unavailable\` with the reason when the address is refused, the page answers an error, is too big or is not HTML or text. Attach \`content\` as a text file (POST /api/sessions/{id}/files) named \`fileName\`.`,
  }),
  validate('json', readWebPageInputSchema),
  async (c) => {
    const { url } = c.req.valid('json');
    await takeWebPageFetches(c, 1);
    const outcome = await fetchWebPage(url, { allowPrivateNetworks: c.get('config').allowPrivateNetworks ?? false, signal: c.req.raw.signal });
    if (!outcome.ok) throw new ApiError(422, 'page_unavailable', outcome.reason);
    const { title, finalUrl } = outcome.page;
    return c.json({ title, url, finalUrl, fileName: `${title.replace(/[/\\]/g, '-')}.md`, content: pageDocument(outcome.page) });
  },
);
