/**
 * Worker-thread side of the code tool (code-threads.ts): a program may compute for seconds, which
 * must not stall the runs a worker process streams meanwhile, so QuickJS runs here.
 *
 * Loaded by Node directly (type stripping), not through tsx or a bundler: import only packages
 * and files with their `.ts` extension, and use only erasable TypeScript syntax.
 *
 * Input: a ProgramTask. Output: its ProgramOutcome (thread-task.ts carries both).
 */
import { serveThreadTasks } from '../../threads/thread-task.ts';
import { CODE_LIMITS } from './code-limits.ts';
import { runOnEngine, warmEngine } from './quickjs-engine.ts';
import type { ProgramTask } from './run-program.ts';

// The module for the default limit loads as the thread starts (the pool starts threads when warmed).
warmEngine(CODE_LIMITS.memoryLimitMb.default);
serveThreadTasks((task: ProgramTask) => runOnEngine(task));
