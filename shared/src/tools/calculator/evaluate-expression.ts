import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EvaluateRequest, EvaluateResponse } from './math-process';
import { sideEntryUrl } from '../../side-entry';
import { evaluatePlainArithmetic } from './plain-arithmetic';

/** Wall-clock budget for one evaluation; past it the child process is killed and replaced. */
export const EVALUATION_TIMEOUT_MS = 2_000;
/** Heap ceiling for the child process, so a huge matrix kills the child, not the job worker. */
export const EVALUATION_MEMORY_LIMIT_MB = 192;
const STARTUP_TIMEOUT_MS = 30_000;
const CHILD_PATH = fileURLToPath(sideEntryUrl(import.meta.url, 'math-process'));

export type EvaluationOutcome = { ok: true; result: string } | { ok: false; error: string };

export type EvaluateOptions = { precision: number; signal?: AbortSignal; timeoutMs?: number };

/**
 * Owns one mathjs child process, started on first use (or by `warm`) and replaced after it is
 * killed. A host evaluates one expression at a time (the pool hands it the next one): they take
 * microseconds, and one at a time means killing a runaway evaluation never takes an innocent one
 * down with it.
 */
class MathProcessHost {
  #child: ChildProcess | undefined;
  #ready: Promise<ChildProcess> | undefined;
  #nextId = 1;
  /** Set by `warm`: a killed child is replaced at once, so the next call finds one running. */
  #keepWarm = false;

  evaluate(expression: string, options: EvaluateOptions): Promise<EvaluationOutcome> {
    return this.#run(expression, options);
  }

  /** Starts the child now rather than on the first call (~0.7 s of module loading). */
  async warm(): Promise<void> {
    this.#keepWarm = true;
    await this.#start();
  }

  /** The running child's pid, if any (tests). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  close(): Promise<void> {
    this.#keepWarm = false;
    const child = this.#child;
    this.#forget(child);
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      // Hold the event loop open until the child is really gone (it is unref'd while idle).
      child.ref();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  #start(): Promise<ChildProcess> {
    this.#ready ??= new Promise<ChildProcess>((resolve, reject) => {
      // execArgv replaces the parent's (tsx or vitest loaders): the child is plain Node, which
      // strips the types of math-process.ts itself.
      const child = fork(CHILD_PATH, [], {
        execArgv: [`--max-old-space-size=${EVALUATION_MEMORY_LIMIT_MB}`],
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
        serialization: 'json',
      });
      this.#child = child;
      // An idle calculator must not keep the parent process alive.
      child.unref();
      child.channel?.unref();
      const timer = setTimeout(() => fail(new Error('the calculator process did not start in time')), STARTUP_TIMEOUT_MS);
      const onMessage = (message: { type?: string }) => {
        if (message.type !== 'ready') return;
        cleanup();
        resolve(child);
      };
      const fail = (error: Error) => {
        cleanup();
        this.#forget(child);
        child.kill('SIGKILL');
        reject(error);
      };
      const onExit = () => fail(new Error('the calculator process exited during startup'));
      const cleanup = () => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('error', fail);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.on('error', fail);
      child.on('exit', onExit);
    });
    return this.#ready;
  }

  #forget(child: ChildProcess | undefined): void {
    if (child === undefined || this.#child !== child) return;
    this.#child = undefined;
    this.#ready = undefined;
  }

  async #run(expression: string, options: EvaluateOptions): Promise<EvaluationOutcome> {
    if (options.signal?.aborted) return { ok: false, error: 'The calculation was cancelled.' };
    let child: ChildProcess;
    try {
      child = await this.#start();
    } catch (error) {
      return { ok: false, error: `Calculator unavailable: ${error instanceof Error ? error.message : String(error)}` };
    }
    // Cancelled while the child started: an abort listener added now would never fire.
    if (options.signal?.aborted) return { ok: false, error: 'The calculation was cancelled.' };
    const timeoutMs = options.timeoutMs ?? EVALUATION_TIMEOUT_MS;
    const request: EvaluateRequest = { id: this.#nextId++, expression, precision: options.precision };

    return new Promise<EvaluationOutcome>((resolve) => {
      const finish = (outcome: EvaluationOutcome, kill: boolean) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        options.signal?.removeEventListener('abort', onAbort);
        if (kill) {
          this.#forget(child);
          child.kill('SIGKILL');
          // Respawn in the background: the next call should not pay for the start-up.
          if (this.#keepWarm) void this.#start().catch(() => {});
        }
        resolve(outcome);
      };
      const onMessage = (response: EvaluateResponse) => {
        if (response.id !== request.id) return;
        finish(response.ok ? { ok: true, result: response.result } : { ok: false, error: response.error }, false);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        // V8 aborts (SIGABRT / 134) when the heap limit is hit; anything else is a crash.
        const outOfMemory = signal === 'SIGABRT' || code === 134;
        finish(
          {
            ok: false,
            error: outOfMemory
              ? `The calculation needed more than ${EVALUATION_MEMORY_LIMIT_MB} MB of memory and was stopped.`
              : 'The calculator stopped unexpectedly.',
          },
          true,
        );
      };
      const onAbort = () => finish({ ok: false, error: 'The calculation was cancelled.' }, true);
      const timer = setTimeout(
        () => finish({ ok: false, error: `The calculation took longer than ${timeoutMs} ms and was stopped.` }, true),
        timeoutMs,
      );
      child.on('message', onMessage);
      child.on('exit', onExit);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      child.send(request);
    });
  }
}

/** Child processes per worker process: one runaway calculation never stalls the others. */
export const CALCULATOR_POOL_SIZE = 2;

type Task = { expression: string; options: EvaluateOptions; resolve: (outcome: EvaluationOutcome) => void };

/**
 * A fixed pool of long-lived hosts sharing one queue: an idle host takes the next call, so while
 * one host's child burns its time budget (and is killed), the others keep answering.
 */
class MathProcessPool {
  readonly #idle: MathProcessHost[];
  readonly #hosts: MathProcessHost[];
  readonly #queue: Task[] = [];

  constructor(size: number) {
    this.#hosts = Array.from({ length: size }, () => new MathProcessHost());
    this.#idle = [...this.#hosts];
  }

  evaluate(expression: string, options: EvaluateOptions): Promise<EvaluationOutcome> {
    return new Promise((resolve) => {
      this.#queue.push({ expression, options, resolve });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#idle.length > 0 && this.#queue.length > 0) {
      const host = this.#idle.pop()!;
      const task = this.#queue.shift()!;
      void host
        .evaluate(task.expression, task.options)
        .catch((error: unknown) => ({ ok: false as const, error: `Calculator failed: ${error instanceof Error ? error.message : String(error)}` }))
        .then((outcome) => {
          this.#idle.push(host);
          task.resolve(outcome);
          this.#dispatch();
        });
    }
  }

  async warm(): Promise<void> {
    await Promise.all(this.#hosts.map((host) => host.warm()));
  }

  pids(): (number | undefined)[] {
    return this.#hosts.map((host) => host.pid);
  }

  async close(): Promise<void> {
    await Promise.all(this.#hosts.map((host) => host.close()));
  }
}

const pool = new MathProcessPool(CALCULATOR_POOL_SIZE);

/**
 * Evaluates a mathjs expression: plain arithmetic in this process (plain-arithmetic.ts), anything
 * else in the limited instance in a child process, with a time and memory budget. Returns the result formatted to `precision` significant digits, or an error.
 * @example await evaluateExpression('2 inch to cm', { precision: 10 }) // { ok: true, result: '5.08 cm' }
 */
export async function evaluateExpression(expression: string, options: EvaluateOptions): Promise<EvaluationOutcome> {
  if (options.signal?.aborted) return { ok: false, error: 'The calculation was cancelled.' };
  return evaluatePlainArithmetic(expression, options.precision) ?? pool.evaluate(expression, options);
}

/** Starts every child process of the pool now (a worker does this at start) and keeps them running after kills. */
export function warmCalculatorProcesses(): Promise<void> {
  return pool.warm();
}

/** The pids of the pool's running children (undefined where none runs); for tests. */
export function calculatorProcessIds(): (number | undefined)[] {
  return pool.pids();
}

/** Stops the child processes (graceful shutdown, tests); the next evaluation starts a new one. */
export function closeCalculatorProcess(): Promise<void> {
  return pool.close();
}
