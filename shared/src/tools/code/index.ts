import { z } from 'zod';
import { defineToolType } from '../define-tool-type';
import { parseToolCall } from '../parse-tool-call';
import { CODE_LIMITS } from './code-limits';
import { BACKSTOP_GRACE_MS, closeCodeThreads, runProgramOffThread, warmCodeThreads } from './code-threads';
import { toToolResult } from './program-result';
import { codeTextZh } from './zh';

const { timeoutMs, memoryLimitMb, maxOutputChars } = CODE_LIMITS;

const codeConfigSchema = z.object({
  timeoutMs: z
    .number()
    .int()
    .min(timeoutMs.min)
    .max(timeoutMs.max)
    .default(timeoutMs.default)
    .describe(`How long one program may run, in milliseconds (${timeoutMs.min}-${timeoutMs.max}).`),
  memoryLimitMb: z
    .number()
    .int()
    .min(memoryLimitMb.min)
    .max(memoryLimitMb.max)
    .default(memoryLimitMb.default)
    .describe(`Memory one program may use, in MB (${memoryLimitMb.min}-${memoryLimitMb.max}).`),
  maxOutputChars: z
    .number()
    .int()
    .min(maxOutputChars.min)
    .max(maxOutputChars.max)
    .default(maxOutputChars.default)
    .describe('Most characters of result and console output returned to the model; the rest is cut, with a note.'),
});

const codeInputSchema = z.object({
  code: z
    .string()
    .min(1)
    .max(CODE_LIMITS.maxCodeChars)
    .describe(
      'A JavaScript program. The value of its last expression is the result, e.g. ' +
        '"const rows = input.trim().split(\'\\n\').map((line) => line.split(\',\')); rows.length". ' +
        'If the last expression is a promise (e.g. an async function called last), it is awaited.',
    ),
  input: z
    .unknown()
    .optional()
    .refine((value) => value === undefined || JSON.stringify(value).length <= CODE_LIMITS.maxInputChars, {
      message: `input is too large: at most ${CODE_LIMITS.maxInputChars} characters of JSON`,
    })
    .describe('Optional data for the program, any JSON value (a CSV as a string, an array, an object); the program reads it as the global `input`, so it need not be pasted into the code.'),
});

export type CodeConfig = z.infer<typeof codeConfigSchema>;
export type CodeInput = z.infer<typeof codeInputSchema>;

/**
 * `code`: runs a JavaScript program the model writes in QuickJS compiled to WebAssembly, on a
 * sandbox thread: a fresh runtime per call, no host functions but console output, a time limit
 * (interrupt handler, and the thread pool behind it) and a memory limit (the WASM memory's fixed
 * maximum). See sandbox-prelude.ts for what the program sees.
 */
export const codeToolType = defineToolType({
  type: 'code',
  label: 'Code (JavaScript)',
  summary: 'Runs a JavaScript program in an isolated sandbox to compute, parse or transform data (CSV, JSON, text).',
  translations: { zh: codeTextZh },
  configSchema: codeConfigSchema,
  inputSchema: codeInputSchema,
  describe: (config) =>
    'Run a JavaScript program (ES2023) in an isolated sandbox and get back its result and console output. Use it for ' +
    'what needs exact computation: parsing or summing a CSV, transforming JSON, counting, sorting, dates, testing a ' +
    'regular expression, a small algorithm. The value of the last expression is the result, returned as JSON (as in a ' +
    'REPL; a top-level `return` is not allowed); console.log output is returned too. Put the data in `input` (any JSON) ' +
    'and read it as the global `input` rather than pasting it into the code. Plain JavaScript only: no import or require, ' +
    'no network (fetch), files, process or timers (setTimeout). Every call starts from a fresh sandbox: nothing is kept ' +
    `between calls. Limits: ${config.timeoutMs} ms, ${config.memoryLimitMb} MB of memory, ${config.maxOutputChars} characters of output.`,
  effect: { possible: ['none'], summary: 'Pure computation in a sandbox: no effect outside the call.' },
  // The program's own limit, then the thread pool's backstop, plus a wait for a free sandbox thread.
  timeoutMs: (config) => config.timeoutMs + BACKSTOP_GRACE_MS + 15_000,
  execute: async (input, config, context) => {
    const started = performance.now();
    const parsed = parseToolCall({ input: codeInputSchema, config: codeConfigSchema }, { input, config, durationMs: () => Math.round(performance.now() - started), fixableInput: true });
    if (!parsed.ok) return parsed.result;
    const { code, input: data } = parsed.input;
    const limits = parsed.config;
    const outcome = await runProgramOffThread({ code, inputJson: data === undefined ? undefined : JSON.stringify(data), ...limits }, context.signal);
    return toToolResult(outcome, limits, code, Math.round(performance.now() - started));
  },
  warm: warmCodeThreads,
  dispose: closeCodeThreads,
});
