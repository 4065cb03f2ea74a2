/**
 * Worker-thread side of the HTML → markdown conversion: turndown on a 1 MB page takes long enough
 * (hundreds of ms) to stall every run a worker process streams, so it runs here instead.
 *
 * Loaded by Node directly (type stripping), not through tsx or a bundler: import only packages
 * and sibling files with their `.ts` extension, and use only erasable TypeScript syntax.
 *
 * Input: { id, html } messages. Output: { id, text, method } or { id, error }.
 */
import { parentPort } from 'node:worker_threads';
import { htmlToMarkdown } from './html-to-markdown.ts';

parentPort?.on('message', (message: { id: number; html: string }) => {
  try {
    parentPort?.postMessage({ id: message.id, ...htmlToMarkdown(message.html) });
  } catch (error) {
    parentPort?.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
  }
});
