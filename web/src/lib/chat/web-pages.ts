/**
 * Web pages attached in the chat (like Open WebUI's `#URL`): the API fetches the page the way the
 * fetch tool does (`POST /api/web-pages/read`) and answers its text as Markdown, which the composer
 * attaches as a text file, so it goes up with the message like any picked file and the model reads it.
 */
import { apiFetch } from '../api.ts';
import type { RouteOutput } from '../api-routes.ts';

export type ReadWebPage = RouteOutput<'/web-pages/read', '$post'>;

/** The page at `url`, or an ApiError whose message says why not (refused address, HTTP error, too big, not HTML or text). */
export function readWebPage(url: string): Promise<ReadWebPage> {
  return apiFetch('/api/web-pages/read', { method: 'POST', json: { url } });
}

/** The page as a file the composer attaches (Markdown, named by its title). */
export function pageFile(page: ReadWebPage): File {
  return new File([page.content], page.fileName, { type: 'text/markdown' });
}

// An http(s) address up to whitespace; a closing bracket or sentence punctuation at its end is the prose's, not the URL's.
const URL_PATTERN = /https?:\/\/[^\s<>"'`]+/g;
const TRAILING = /[.,;:!?)\]}>'"]+$/;

function clean(url: string): string {
  const trimmed = url.replace(TRAILING, '');
  return URL.canParse(trimmed) ? trimmed : '';
}

/** The distinct http(s) addresses in a message, in order (what "Attach page" offers). */
export function urlsIn(text: string): string[] {
  return [...new Set((text.match(URL_PATTERN) ?? []).map(clean).filter(Boolean))];
}

/**
 * `#https://…` tokens in a message: the pages to attach, and the message without them (a token is
 * an instruction to attach, not words for the model). A `#` inside a word is left alone.
 */
export function pageTokens(text: string): { urls: string[]; rest: string } {
  const urls: string[] = [];
  const rest = text.replace(/(^|\s)#(https?:\/\/[^\s<>"'`]+)/g, (token, space: string, url: string) => {
    const cleaned = clean(url);
    if (!cleaned) return token;
    if (!urls.includes(cleaned)) urls.push(cleaned);
    return space + url.slice(cleaned.length);
  });
  return { urls, rest: rest.replace(/[ \t]{2,}/g, ' ').trim() };
}
