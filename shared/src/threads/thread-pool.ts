import { Worker } from 'node:worker_threads';

/**
 * Long-lived worker threads for CPU-heavy work on untrusted input (a 1 MB page to markdown, a PDF's
 * text), so the event loop of the process that asked keeps serving meanwhile. Each task has a time
 * limit: past it the thread is terminated and replaced, and the task ends with `onFailure`'s answer.
 * The thread side is `serveThreadTasks` (thread-task.ts).
 */

/** What a thread answers for a task. */
export type ThreadReply<Out> = { id: number; value: Out } | { id: number; error: string };

export type ThreadFailure = { reason: 'timeout' | 'error' | 'exit'; message?: string };

export type ThreadPoolOptions<In, Out> = {
  /** The thread's module (a side entry: see side-entry.ts). */
  url: URL;
  threads: number;
  /** Per task, from when its thread receives it; a function gives each task a limit of its own. */
  timeoutMs: number | ((input: In) => number);
  /** The answer for a task whose thread failed it, ran out of time or died. */
  onFailure: (input: In, failure: ThreadFailure) => Out;
};

class TaskThread<In, Out> {
  #worker: Worker | undefined;
  #nextId = 1;

  constructor(private readonly options: ThreadPoolOptions<In, Out>) {}

  #start(): Worker {
    if (this.#worker) return this.#worker;
    // execArgv [] : plain Node (type stripping), not the parent's loaders.
    const worker = new Worker(this.options.url, { execArgv: [] });
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

  run(input: In): Promise<Out> {
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const done = (value: Out, stop: boolean) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        if (stop) {
          if (this.#worker === worker) this.#worker = undefined;
          void worker.terminate();
          this.#start();
        }
        resolve(value);
      };
      const onMessage = (reply: ThreadReply<Out>) => {
        if (reply.id !== id) return;
        done('error' in reply ? this.options.onFailure(input, { reason: 'error', message: reply.error }) : reply.value, false);
      };
      const onExit = () => done(this.options.onFailure(input, { reason: 'exit' }), false);
      const { timeoutMs } = this.options;
      const limit = typeof timeoutMs === 'function' ? timeoutMs(input) : timeoutMs;
      const timer = setTimeout(() => done(this.options.onFailure(input, { reason: 'timeout' }), true), limit);
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      worker.postMessage({ id, input });
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }
}

/** Threads sharing one queue: an idle thread takes the next task. */
export class ThreadPool<In, Out> {
  readonly #threads: TaskThread<In, Out>[];
  readonly #idle: TaskThread<In, Out>[];
  readonly #queue: { input: In; resolve: (value: Out) => void }[] = [];

  constructor(options: ThreadPoolOptions<In, Out>) {
    this.#threads = Array.from({ length: options.threads }, () => new TaskThread(options));
    this.#idle = [...this.#threads];
  }

  run(input: In): Promise<Out> {
    return new Promise((resolve) => {
      this.#queue.push({ input, resolve });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#idle.length > 0 && this.#queue.length > 0) {
      const thread = this.#idle.pop()!;
      const task = this.#queue.shift()!;
      void thread.run(task.input).then((value) => {
        this.#idle.push(thread);
        task.resolve(value);
        this.#dispatch();
      });
    }
  }

  /** Starts the threads ahead of the first task (thread start-up is tens of milliseconds). */
  warm(): void {
    for (const thread of this.#threads) thread.warm();
  }

  async close(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => thread.close()));
  }
}
