import { sideEntryUrl } from '../../side-entry';
import { ThreadPool } from '../../threads/thread-pool';
import type { ProgramOutcome, ProgramTask } from './run-program';

/** Programs running at once per process; more wait for a free thread. */
export const CODE_THREADS = 2;
/**
 * The second line behind QuickJS's interrupt handler: a thread still busy this long after its
 * program's deadline is terminated and replaced. QuickJS checks for interrupts between bytecodes,
 * so one long native operation (joining a 4-billion-slot array) never reaches the check. The grace
 * covers a fresh thread loading its WASM module before the deadline starts.
 */
export const BACKSTOP_GRACE_MS = 3_000;

const pool = new ThreadPool<ProgramTask, ProgramOutcome>({
  url: sideEntryUrl(import.meta.url, 'code-thread'),
  threads: CODE_THREADS,
  timeoutMs: (task) => task.timeoutMs + BACKSTOP_GRACE_MS,
  onFailure: (_, failure) => ({
    ok: false,
    failure: failure.reason === 'timeout' ? { reason: 'timeout' } : { reason: 'sandbox', message: failure.message ?? 'the sandbox thread stopped' },
    logs: '',
    printedChars: 0,
    runMs: 0,
  }),
});

/**
 * Runs a program on a sandbox thread, so the event loop of this process keeps serving meanwhile.
 * Aborting `signal` stops the program at its next interrupt check (or before it starts, if it waits
 * for a thread).
 */
export function runProgramOffThread(task: Omit<ProgramTask, 'cancel'>, signal?: AbortSignal): Promise<ProgramOutcome> {
  const cancel = new Int32Array(new SharedArrayBuffer(4));
  const stop = () => Atomics.store(cancel, 0, 1);
  if (signal?.aborted) stop();
  else signal?.addEventListener('abort', stop, { once: true });
  return pool.run({ ...task, cancel }).finally(() => signal?.removeEventListener('abort', stop));
}

/** Starts the sandbox threads, each loading its WASM module, ahead of the first program (a worker does this at start). */
export async function warmCodeThreads(): Promise<void> {
  pool.warm();
}

/** Terminates the sandbox threads (a worker does this when it stops). */
export function closeCodeThreads(): Promise<void> {
  return pool.close();
}
