import { sideEntryUrl } from '../../side-entry';
import { ThreadPool } from '../../threads/thread-pool';
import { htmlToMarkdown, htmlToPlainText, MAX_HTML_CONVERSION_CHARS, type HtmlConversion } from './html-to-markdown';

/** Below this size turndown takes a few ms: converting in place is cheaper than a message round trip. */
export const INLINE_CONVERSION_MAX_CHARS = 32 * 1024;
/** A conversion that takes longer is stopped (its thread is replaced) and the page is returned as plain text. */
export const CONVERSION_TIMEOUT_MS = 15_000;
const THREADS = 2;
const THREAD_URL = sideEntryUrl(import.meta.url, 'html-to-markdown-thread');

const pool = new ThreadPool<string, HtmlConversion>({
  url: THREAD_URL,
  threads: THREADS,
  timeoutMs: CONVERSION_TIMEOUT_MS,
  // A page the thread failed, or took too long over: its plain text.
  onFailure: (html) => ({ text: htmlToPlainText(html), method: 'text-fallback' }),
});

/**
 * `htmlToMarkdown` without blocking the event loop: pages above a few KB are converted on a
 * worker thread, so the runs a worker process streams meanwhile keep their pace.
 */
export function convertHtmlToMarkdown(html: string): Promise<HtmlConversion> {
  const input = html.length > MAX_HTML_CONVERSION_CHARS ? html.slice(0, MAX_HTML_CONVERSION_CHARS) : html;
  if (input.length <= INLINE_CONVERSION_MAX_CHARS) return Promise.resolve(htmlToMarkdown(input));
  return pool.run(input);
}

/** Starts the conversion threads ahead of the first large page (a worker does this at start). */
export async function warmMarkdownThreads(): Promise<void> {
  pool.warm();
}

export function closeMarkdownThreads(): Promise<void> {
  return pool.close();
}
