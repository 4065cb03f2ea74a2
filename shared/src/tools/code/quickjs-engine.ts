/**
 * The QuickJS WASM module of one sandbox thread: loaded once, reused by every program that thread
 * runs (each in a runtime of its own), and replaced when a run leaves it unfit.
 *
 * Loaded by Node directly in the sandbox thread (type stripping): import only packages and files
 * with their `.ts` extension, and use only erasable TypeScript syntax.
 */
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, type QuickJSWASMModule } from 'quickjs-emscripten';
import { runProgram, type ProgramOutcome, type ProgramTask } from './run-program.ts';

const MB = 1024 * 1024;
const WASM_PAGE_BYTES = 64 * 1024;
/** What the WASM build starts with (its data, C stack and first heap pages) and needs before any program. */
export const BASE_MEMORY_MB = 16;

type Engine = { module: QuickJSWASMModule; memoryLimitMb: number };

let current: Promise<Engine> | undefined;

/**
 * A module whose WASM memory cannot grow past BASE_MEMORY_MB + memoryLimitMb. That fixed maximum is
 * the memory limit that holds (QuickJS's own counts allocations, not bytes): past it an allocation
 * fails inside QuickJS, which throws "out of memory" in the program.
 */
function loadEngine(memoryLimitMb: number): Promise<Engine> {
  const wasmMemory = new WebAssembly.Memory({ initial: (BASE_MEMORY_MB * MB) / WASM_PAGE_BYTES, maximum: ((BASE_MEMORY_MB + memoryLimitMb) * MB) / WASM_PAGE_BYTES });
  // Emscripten prints an abort to stderr before throwing it; the throw is reported, the print would be noise.
  const quiet = () => {};
  const emscriptenModule = { wasmMemory, print: quiet, printErr: quiet };
  const loading = newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { emscriptenModule })).then((module) => ({ module, memoryLimitMb }));
  loading.catch(() => {
    if (current === loading) current = undefined;
  });
  return loading;
}

/** Starts loading the module for the default limit, so the thread's first program does not wait for it. */
export function warmEngine(memoryLimitMb: number): void {
  current ??= loadEngine(memoryLimitMb);
}

/**
 * Runs one program. The module is kept for the next one unless the run left it unfit (aborted, or its
 * memory grew: WASM memory never shrinks, and a fresh module costs a few ms) or the next program
 * needs another memory limit.
 */
export async function runOnEngine(task: ProgramTask): Promise<ProgramOutcome> {
  let engine = current ? await current : undefined;
  if (!engine || engine.memoryLimitMb !== task.memoryLimitMb) {
    current = loadEngine(task.memoryLimitMb);
    engine = await current;
  }
  const { outcome, reusable } = runProgram(engine.module, task);
  if (!reusable || engine.module.getWasmMemory().buffer.byteLength > BASE_MEMORY_MB * MB) current = undefined;
  return outcome;
}
