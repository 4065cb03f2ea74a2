/**
 * Runs one program in a fresh QuickJS runtime and context of a loaded WASM module, and disposes
 * both before it returns, whatever the program did.
 *
 * Loaded by Node directly in the sandbox thread (type stripping): import only packages and files
 * with their `.ts` extension, and use only erasable TypeScript syntax.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import { SANDBOX_PRELUDE } from './sandbox-prelude.ts';

/**
 * QuickJS's own stack check, in its bytes. Its frames on the thread's real stack are bigger: at
 * 256 KB a deep recursion or a deeply nested JSON.stringify fails inside QuickJS ("stack
 * overflow", about 1,500 calls deep) well before it exhausts a worker thread's 4 MB stack, which
 * would abort the WASM module instead.
 */
export const MAX_STACK_BYTES = 256 * 1024;

/** One program, as the tool hands it to a sandbox thread. */
export type ProgramTask = {
  code: string;
  /** The call's `input` field as JSON text; undefined when it had none. */
  inputJson?: string;
  timeoutMs: number;
  memoryLimitMb: number;
  maxOutputChars: number;
  /** Shared memory the caller sets to 1 to stop the program (the call was cancelled); read by the interrupt handler. */
  cancel?: Int32Array;
};

/** The program's value: JSON text, or String(value) when JSON cannot express it; at most maxOutputChars of it. */
export type ProgramValue = { kind: 'undefined' } | { kind: 'json' | 'string'; text: string; length: number };

export type ProgramFailure =
  | { reason: 'threw'; name: string; message: string; stack: string }
  | { reason: 'timeout' | 'cancelled' | 'unsettled' }
  /** The host side failed (the WASM module aborted, the thread's stack overflowed): not the program's own error. */
  | { reason: 'sandbox'; message: string };

export type ProgramOutcome = {
  /** What the program printed through console.*, at most maxOutputChars. */
  logs: string;
  /** How many characters it printed in all (more than `logs.length` when cut). */
  printedChars: number;
  runMs: number;
} & ({ ok: true; value: ProgramValue } | { ok: false; failure: ProgramFailure });

type Verdict = { ok: true; value: ProgramValue } | { ok: false; failure: ProgramFailure };

/** A call cancelled before its program started. */
class StoppedBeforeStart extends Error {}

/** The part of a QuickJS WASM module a run needs (a TestQuickJSWASMModule fits, for leak checks). */
export type ProgramEngine = Pick<QuickJSWASMModule, 'newRuntime'>;

/**
 * Runs `task.code` as a global script; its completion value (a REPL's "last expression") is the
 * result, awaited when it is a promise. `reusable` is false when the module must not run anything
 * again (the host side threw, or disposing found the heap inconsistent).
 */
export function runProgram(engine: ProgramEngine, task: ProgramTask): { outcome: ProgramOutcome; reusable: boolean } {
  const started = performance.now();
  const output = { logs: '', printedChars: 0 };
  let reusable = true;
  let stoppedBy: 'timeout' | 'cancelled' | undefined;
  const cancelled = () => task.cancel !== undefined && Atomics.load(task.cancel, 0) !== 0;

  let verdict: Verdict;
  let runtime: QuickJSRuntime | undefined;
  let context: QuickJSContext | undefined;
  try {
    if (cancelled()) throw new StoppedBeforeStart();
    runtime = engine.newRuntime();
    // A first line only: this build counts 8 bytes per allocation whatever its size, so the limit
    // refuses one huge allocation but not many big ones. The module's fixed WASM memory is the real cap.
    runtime.setMemoryLimit(task.memoryLimitMb * 1024 * 1024);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    const deadline = performance.now() + task.timeoutMs;
    runtime.setInterruptHandler(() => {
      stoppedBy ??= cancelled() ? 'cancelled' : performance.now() > deadline ? 'timeout' : undefined;
      return stoppedBy !== undefined;
    });
    context = runtime.newContext();
    verdict = evaluate(context, runtime, task, output);
    if (!verdict.ok && verdict.failure.reason === 'threw' && stoppedBy) verdict = { ok: false, failure: { reason: stoppedBy } };
  } catch (error) {
    if (error instanceof StoppedBeforeStart) verdict = { ok: false, failure: { reason: 'cancelled' } };
    else if (stoppedBy) verdict = { ok: false, failure: { reason: stoppedBy } };
    else {
      reusable = false;
      verdict = { ok: false, failure: { reason: 'sandbox', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) } };
    }
  } finally {
    try {
      context?.dispose();
      runtime?.dispose();
    } catch {
      // QuickJS asserts its heap is empty when a runtime is freed; after an abort it is not.
      reusable = false;
    }
  }
  return { outcome: { ...verdict, ...output, runMs: Math.round(performance.now() - started) }, reusable };
}

/** The prelude, the program, its pending jobs, and the description of what it left. */
function evaluate(context: QuickJSContext, runtime: QuickJSRuntime, task: ProgramTask, output: { logs: string; printedChars: number }): Verdict {
  const helpers = setUpSandbox(context, task, output);
  const describeResult = context.getProp(helpers, 'describeResult');
  const describeError = context.getProp(helpers, 'describeError');
  helpers.dispose();
  try {
    const threw = (error: QuickJSHandle): Verdict => {
      const [name, message, stack] = describeThrown(context, describeError, error);
      return { ok: false, failure: { reason: 'threw', name, message, stack } };
    };
    const evaluated = context.evalCode(task.code, 'program.js', { type: 'global' });
    if (evaluated.error) return evaluated.error.consume(threw);
    let value = evaluated.value;
    try {
      // Promise callbacks run only when asked: all of them, under the same interrupt handler.
      const jobs = runtime.executePendingJobs();
      if (jobs.error) return jobs.error.consume(threw);
      const state = context.getPromiseState(value);
      if (state.type === 'pending') return { ok: false, failure: { reason: 'unsettled' } };
      if (state.type === 'rejected') return state.error.consume(threw);
      if (!state.notAPromise) {
        value.dispose();
        value = state.value;
      }
      const result = context.callFunction(describeResult, context.undefined, value);
      if (result.error) return result.error.consume(threw);
      const [kind, text, length] = result.value.consume((tuple) => readTuple(context, tuple, 3));
      if (kind === 'undefined') return { ok: true, value: { kind } };
      if ((kind === 'json' || kind === 'string') && typeof text === 'string' && typeof length === 'number') return { ok: true, value: { kind, text, length } };
      throw new Error('the sandbox could not describe the result');
    } finally {
      if (value.alive) value.dispose();
    }
  } finally {
    describeResult.dispose();
    describeError.dispose();
  }
}

/** Runs the prelude (sandbox-prelude.ts) with the host's `write` and returns its helpers. */
function setUpSandbox(context: QuickJSContext, task: ProgramTask, output: { logs: string; printedChars: number }): QuickJSHandle {
  const write = context.newFunction('write', (piece, printed) => {
    // The prelude caps what it sends; the host keeps its own cap all the same.
    const room = task.maxOutputChars - output.logs.length;
    if (room > 0 && context.typeof(piece) === 'string') output.logs += context.getString(piece).slice(0, room);
    if (context.typeof(printed) === 'number') output.printedChars += context.getNumber(printed);
  });
  try {
    const setup = context.unwrapResult(context.evalCode(SANDBOX_PRELUDE, 'sandbox-prelude.js', { type: 'global', strict: true }));
    try {
      const inputJson = task.inputJson === undefined ? context.undefined : context.newString(task.inputJson);
      const maxChars = context.newNumber(task.maxOutputChars);
      try {
        return context.unwrapResult(context.callFunction(setup, context.undefined, write, inputJson, maxChars));
      } finally {
        if (inputJson !== context.undefined) inputJson.dispose();
        maxChars.dispose();
      }
    } finally {
      setup.dispose();
    }
  } finally {
    write.dispose();
  }
}

/** [name, message, stack] of a thrown value: through the prelude, or read directly if that fails (e.g. out of memory again). */
function describeThrown(context: QuickJSContext, describeError: QuickJSHandle, error: QuickJSHandle): [string, string, string] {
  const described = context.callFunction(describeError, context.undefined, error);
  if (!described.error) {
    const [name, message, stack] = described.value.consume((tuple) => readTuple(context, tuple, 3));
    return [String(name ?? ''), String(message ?? ''), String(stack ?? '')];
  }
  described.error.dispose();
  const read = (key: string) => context.getProp(error, key).consume((handle) => (context.typeof(handle) === 'string' ? context.getString(handle) : ''));
  return [read('name'), read('message'), ''];
}

/** The first `length` elements of a sandbox array, as strings and numbers (anything else undefined). */
function readTuple(context: QuickJSContext, tuple: QuickJSHandle, length: number): (string | number | undefined)[] {
  return Array.from({ length }, (_, index) =>
    context.getProp(tuple, index).consume((element) => {
      const type = context.typeof(element);
      return type === 'string' ? context.getString(element) : type === 'number' ? context.getNumber(element) : undefined;
    }),
  );
}
