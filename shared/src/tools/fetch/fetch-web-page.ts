import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import type { ResolveHostname } from './assert-safe-url';
import { fetchConfigSchema, MAX_RESPONSE_BYTES } from './fetch-schemas';
import { fetchText } from './fetch-url';
import { looksLikeHtml, parseBody } from './parse-body';
import { pageTitle } from './page-title';
import { mediaTypeOf } from './read-body';

/** The most a page's Markdown may be: what a text file may be in a chat or a knowledge base (512 KiB). */
export const MAX_PAGE_TEXT_BYTES = 512 * 1024;
/** The whole fetch, redirects and body included. */
export const PAGE_TIMEOUT_MS = 15_000;
/** The longest title kept (it names a file). */
const MAX_TITLE_CHARS = 150;

/** An address a person asks to read: absolute http(s), with a host, at most 2,000 characters. */
export const webPageUrlSchema = z
  .url({ protocol: /^https?$/, error: 'Enter an http:// or https:// address' })
  .max(2000)
  .refine((url) => URL.canParse(url) && new URL(url).hostname !== '', 'Enter an http:// or https:// address');

/** A page read as a person would save it: its title, where it came from, its text as Markdown. */
export type WebPage = { title: string; url: string; finalUrl: string; markdown: string; contentType: string };
export type WebPageOutcome = { ok: true; page: WebPage } | { ok: false; reason: string };

export type FetchWebPageOptions = {
  /** FETCH_ALLOW_PRIVATE_NETWORKS (cloud metadata stays refused). */
  allowPrivateNetworks: boolean;
  /** DNS for the check and the connection; the system resolver when absent (tests stub it). */
  resolve?: ResolveHostname;
  signal?: AbortSignal;
};

// The fetch tool's defaults with the page limits: any host the SSRF guard allows, GET, text back as received.
const PAGE_CONFIG = fetchConfigSchema.parse({ timeout: PAGE_TIMEOUT_MS, maxResponseSize: MAX_RESPONSE_BYTES, parseMode: 'raw' });

/**
 * Fetches one web page through the fetch tool's guarded path (fetchText: SSRF checks on every hop,
 * connect-time address check, size cap, timeout) and converts HTML to Markdown off the event loop.
 * Only HTML and text are taken; a refusal, an HTTP error, a body over 1 MiB (or Markdown over
 * 512 KiB) comes back as a reason a person can read.
 * @example const outcome = await fetchWebPage('https://example.com/guide', { allowPrivateNetworks: false });
 */
export async function fetchWebPage(url: string, options: FetchWebPageOptions): Promise<WebPageOutcome> {
  const fetched = await fetchText({ url }, PAGE_CONFIG, {
    signal: options.signal ?? new AbortController().signal,
    allowPrivateNetworks: options.allowPrivateNetworks,
    resolve: options.resolve,
  });
  if (!fetched.ok) return { ok: false, reason: failureReason(fetched.result) };
  if (fetched.truncated) return { ok: false, reason: `The page is larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB` };
  const mediaType = mediaTypeOf(fetched.contentType);
  const html = looksLikeHtml(fetched.text, fetched.contentType);
  if (!html && !isTextType(mediaType)) return { ok: false, reason: `The page is not HTML or text (${mediaType})` };
  const parsed = await parseBody(fetched.text, fetched.contentType, 'markdown');
  const markdown = parsed.content.trim();
  if (markdown.length === 0) return { ok: false, reason: 'The page has no text' };
  const htmlTitle = html ? pageTitle(fetched.text) : undefined;
  const title = (htmlTitle && shortTitle(htmlTitle)) ?? markdownHeading(markdown) ?? titleFromUrl(fetched.finalUrl);
  const page: WebPage = { title, url, finalUrl: fetched.finalUrl, markdown, contentType: mediaType || 'text/plain' };
  if (Buffer.byteLength(pageDocument(page)) > MAX_PAGE_TEXT_BYTES) return { ok: false, reason: `The page's text is larger than ${MAX_PAGE_TEXT_BYTES / 1024} KiB` };
  return { ok: true, page };
}

/** Text a person reads: text/* and XML-ish types; an untyped body passes when it does not look binary (checked before). */
function isTextType(mediaType: string): boolean {
  return mediaType === '' || mediaType.startsWith('text/') || mediaType.endsWith('+xml') || mediaType === 'application/xml';
}

function failureReason(result: { error?: string; metadata?: Record<string, unknown> }): string {
  const metadata = result.metadata ?? {};
  if (typeof metadata.blockedReason === 'string') return `Refused: ${metadata.blockedReason}. Only public http(s) addresses can be fetched`;
  if (typeof metadata.statusCode === 'number' && /^HTTP \d{3} /.test(result.error ?? '')) {
    return `The page answered HTTP ${metadata.statusCode} ${STATUS_CODES[metadata.statusCode] ?? ''}`.trim();
  }
  if (typeof metadata.contentType === 'string' && /binary/.test(result.error ?? '')) return `The page is not HTML or text (${mediaTypeOf(metadata.contentType) || 'binary'})`;
  if (metadata.timedOut) return `The page took longer than ${PAGE_TIMEOUT_MS / 1000} s to load`;
  return (result.error ?? 'The page could not be fetched').replace(/\.$/, '');
}

function markdownHeading(markdown: string): string | undefined {
  const heading = /^#{1,2}\s+(.+)$/m.exec(markdown.slice(0, 10_000));
  return heading?.[1] ? shortTitle(heading[1].replace(/[*_`[\]]/g, '')) : undefined;
}

function titleFromUrl(url: string): string {
  const parsed = new URL(url);
  const last = decodeURIComponent(parsed.pathname.split('/').filter(Boolean).pop() ?? '');
  return shortTitle(last ? `${parsed.hostname} – ${last}` : parsed.hostname) ?? parsed.hostname;
}

function shortTitle(text: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, ' ').replace(/\s+/g, ' ').trim();
  if (!clean) return undefined;
  return clean.length > MAX_TITLE_CHARS ? `${clean.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…` : clean;
}

/** The text a page is stored and read as: where it came from, then its Markdown. */
export function pageDocument(page: WebPage): string {
  return `# ${page.title}\n\nSource: ${page.finalUrl}\n\n${page.markdown}\n`;
}
