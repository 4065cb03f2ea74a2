/**
 * Worker-thread side of the HTML → markdown conversion: turndown on a 1 MB page takes long enough
 * (hundreds of ms) to stall every run a worker process streams, so it runs here instead.
 *
 * Loaded by Node directly (type stripping), not through tsx or a bundler: import only packages
 * and files with their `.ts` extension, and use only erasable TypeScript syntax.
 *
 * Input: a page's HTML. Output: its HtmlConversion (thread-task.ts carries both).
 */
import { serveThreadTasks } from '../../threads/thread-task.ts';
import { htmlToMarkdown } from './html-to-markdown.ts';

serveThreadTasks((html: string) => htmlToMarkdown(html));
