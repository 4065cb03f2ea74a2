import type { ToolResult } from '../define-tool-type';
import type { ProgramFailure, ProgramOutcome, ProgramValue } from './run-program';

export type ProgramLimits = { timeoutMs: number; memoryLimitMb: number; maxOutputChars: number };

/** What a successful call returns to the model: the value, the console output, and why anything is missing. */
export type CodeToolData = {
  /** The program's value as JSON (parsed), or a string when it was not JSON-serialisable or was cut. Absent when undefined. */
  result?: unknown;
  /** console.* output, one line per call. */
  logs?: string;
  /** What was cut or converted, and how to avoid it. */
  notes?: string[];
};

/**
 * A program's outcome as a ToolResult. The result comes first within `maxOutputChars`; console
 * output gets the rest. A failure is a message naming the cause and the fix, with the console
 * output printed before it (the model sees only the message of a failed call).
 */
export function toToolResult(outcome: ProgramOutcome, limits: ProgramLimits, code: string, durationMs: number): ToolResult {
  const metadata = { durationMs, runMs: outcome.runMs, printedChars: outcome.printedChars };
  if (!outcome.ok) {
    const logs = cutLogs(outcome, limits.maxOutputChars);
    const printed = logs.text ? `\nConsole output before it stopped${logs.note ? ` (${logs.note})` : ''}:\n${logs.text}` : '';
    return { success: false, error: failureMessage(outcome.failure, limits, code) + printed, metadata: { ...metadata, fixable: isProgramsFault(outcome.failure) } };
  }
  const data: CodeToolData = {};
  const notes: string[] = [];
  const value = describeValue(outcome.value, limits.maxOutputChars);
  if (value.note) notes.push(value.note);
  if (value.present) data.result = value.result;
  const logs = cutLogs(outcome, limits.maxOutputChars - value.chars);
  if (logs.text) data.logs = logs.text;
  if (logs.note) notes.push(`Console output cut: ${logs.note}. Print less (a summary, the first rows).`);
  if (notes.length > 0) data.notes = notes;
  return { success: true, data, metadata };
}

function describeValue(value: ProgramValue, maxChars: number): { present: boolean; result?: unknown; chars: number; note?: string } {
  if (value.kind === 'undefined') return { present: false, chars: 0 };
  if (value.length > maxChars) {
    return {
      present: true,
      result: value.text,
      chars: value.text.length,
      note: `The result was cut: its first ${maxChars} of ${value.length} characters${value.kind === 'json' ? ' of JSON' : ''} are shown. End the program with a smaller value (a summary, the first rows).`,
    };
  }
  if (value.kind === 'string') {
    return { present: true, result: value.text, chars: value.length, note: 'The result cannot be written as JSON (a function, a symbol, a BigInt or a cycle), so it is shown as String(value).' };
  }
  return { present: true, result: JSON.parse(value.text), chars: value.length };
}

/** The console output within `room` characters, and a note saying how much was cut. */
function cutLogs(outcome: ProgramOutcome, room: number): { text: string; note?: string } {
  const kept = outcome.logs.slice(0, Math.max(0, room));
  const text = kept.endsWith('\n') ? kept.slice(0, -1) : kept;
  if (outcome.printedChars <= kept.length) return { text };
  return { text, note: `${outcome.printedChars} characters printed, the first ${kept.length} shown` };
}

/** Whether a corrected program can succeed: not after a cancel or a failure of the sandbox itself. */
function isProgramsFault(failure: ProgramFailure): boolean {
  if (failure.reason === 'cancelled') return false;
  return failure.reason !== 'sandbox' || /call stack|stack overflow/i.test(failure.message);
}

/** What went wrong, in words the model can act on. */
function failureMessage(failure: ProgramFailure, limits: ProgramLimits, code: string): string {
  switch (failure.reason) {
    case 'timeout':
      return `The program was stopped after ${limits.timeoutMs} ms (its time limit). Make it do less work, or look for an endless loop.`;
    case 'cancelled':
      return 'Cancelled: the program was stopped because the call was cancelled.';
    case 'unsettled':
      return 'The program ended with a promise that never settled: nothing here can resolve it later (there are no timers, network or files). Await only work the program does itself.';
    case 'sandbox':
      return /call stack|stack overflow/i.test(failure.message)
        ? `The program recursed too deeply for the sandbox (${failure.message}). Make it iterative.`
        : `The sandbox failed while running the program (${failure.message}). This is not the program's fault; try once more, and if it fails again tell the user the code tool is unavailable.`;
    case 'threw':
      return thrownMessage(failure, limits, code);
  }
}

function thrownMessage(failure: Extract<ProgramFailure, { reason: 'threw' }>, limits: ProgramLimits, code: string): string {
  const error = failure.name ? `${failure.name}: ${failure.message}` : `a value that is not an Error: ${failure.message}`;
  const where = failure.stack ? `\n${failure.stack}` : '';
  if (failure.name === 'InternalError' && failure.message === 'out of memory') {
    return `The program ran out of memory (its limit is ${limits.memoryLimitMb} MB). Work on less data at a time, or keep fewer values alive.${where}`;
  }
  if (failure.name === 'InternalError' && failure.message === 'stack overflow') {
    return `The program recursed too deeply (InternalError: stack overflow; about 1,500 nested calls fit). Make it iterative.${where}`;
  }
  return `The program threw ${error}${where}${hintFor(failure, code)}`;
}

/** The fix for the mistakes a model makes here most (QuickJS's syntax errors name the token, not the mistake). */
function hintFor(failure: Extract<ProgramFailure, { reason: 'threw' }>, code: string): string {
  const { name, message } = failure;
  const syntax = name === 'SyntaxError';
  if (syntax && /return not in a function/.test(message)) {
    return '\nA top-level return is not allowed: end the program with the expression whose value you want (e.g. `total` as the last line).';
  }
  if ((syntax && /^\s*(import|export)\b/m.test(code)) || (name === 'ReferenceError' && /could not load module/.test(message))) {
    return '\nThere are no modules here: no import, export or require. The program runs as one plain script.';
  }
  if (syntax && /(^|[^.\w])await\b/.test(code)) {
    return '\nIf it uses await outside an async function: top-level await is not available here; make the last expression an async function call, e.g. (async () => { ... })(); its promise is awaited.';
  }
  if (name === 'ReferenceError' && /'(require|process|fetch|module|exports|Buffer|setTimeout|setInterval|XMLHttpRequest|__dirname)' is not defined/.test(message)) {
    return '\nOnly the JavaScript language itself is here, with console.log and `input`: no require or import, network, files, process or timers. Pass data in `input`.';
  }
  return '';
}
