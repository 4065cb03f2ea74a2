import { Worker } from 'node:worker_threads';
import { sideEntryUrl } from '../../side-entry';
import { htmlToMarkdown, htmlToPlainText, MAX_HTML_CONVERSION_CHARS, type HtmlConversion } from './html-to-markdown';

/** Below this size turndown takes a few ms: converting in place is cheaper than a message round trip. */
export const INLINE_CONVERSION_MAX_CHARS = 32 * 1024;
/** A conversion that takes longer is stopped (its thread is replaced) and the page is returned as plain text. */
export const CONVERSION_TIMEOUT_MS = 15_000;
const THREADS = 2;
const THREAD_URL = sideEntryUrl(import.meta.url, 'html-to-markdown-thread');

type Task = { html: string; resolve: (conversion: HtmlConversion) => void };
type Reply = { id: number; text: string; method: HtmlConversion['method'] } | { id: number; error: string };

/** One long-lived worker thread running turndown; replaced when it is stopped or dies. */
class MarkdownThread {
  #worker: Worker | undefined;
  #nextId = 1;

  #start(): Worker {
    if (this.#worker) return this.#worker;
    // execArgv [] : plain Node (type stripping), not the parent's loaders.
    const worker = new Worker(THREAD_URL, { execArgv: [] });
    // An idle thread must not keep the process alive.
    worker.unref();
    worker.on('error', () => {});
    worker.once('exit', () => {
      if (this.#worker === worker) this.#worker = undefined;
    });
    this.#worker = worker;
    return worker;
  }

  warm(): void {
    this.#start();
  }

  convert(html: string): Promise<HtmlConversion> {
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const done = (conversion: HtmlConversion, stop: boolean) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        if (stop) {
          if (this.#worker === worker) this.#worker = undefined;
          void worker.terminate();
          this.#start();
        }
        resolve(conversion);
      };
      const fallback = () => ({ text: htmlToPlainText(html), method: 'text-fallback' as const });
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        done('error' in reply ? fallback() : { text: reply.text, method: reply.method }, false);
      };
      const onExit = () => done(fallback(), false);
      const timer = setTimeout(() => done(fallback(), true), CONVERSION_TIMEOUT_MS);
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      worker.postMessage({ id, html });
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }
}

/** Threads sharing one queue: an idle thread takes the next page. */
class MarkdownThreadPool {
  readonly #threads = Array.from({ length: THREADS }, () => new MarkdownThread());
  readonly #idle = [...this.#threads];
  readonly #queue: Task[] = [];

  convert(html: string): Promise<HtmlConversion> {
    return new Promise((resolve) => {
      this.#queue.push({ html, resolve });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#idle.length > 0 && this.#queue.length > 0) {
      const thread = this.#idle.pop()!;
      const task = this.#queue.shift()!;
      void thread.convert(task.html).then((conversion) => {
        this.#idle.push(thread);
        task.resolve(conversion);
        this.#dispatch();
      });
    }
  }

  warm(): void {
    for (const thread of this.#threads) thread.warm();
  }

  async close(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => thread.close()));
  }
}

const pool = new MarkdownThreadPool();

/**
 * `htmlToMarkdown` without blocking the event loop: pages above a few KB are converted on a
 * worker thread, so the runs a worker process streams meanwhile keep their pace.
 */
export function convertHtmlToMarkdown(html: string): Promise<HtmlConversion> {
  const input = html.length > MAX_HTML_CONVERSION_CHARS ? html.slice(0, MAX_HTML_CONVERSION_CHARS) : html;
  if (input.length <= INLINE_CONVERSION_MAX_CHARS) return Promise.resolve(htmlToMarkdown(input));
  return pool.convert(input);
}

/** Starts the conversion threads ahead of the first large page (a worker does this at start). */
export async function warmMarkdownThreads(): Promise<void> {
  pool.warm();
}

export function closeMarkdownThreads(): Promise<void> {
  return pool.close();
}
