/**
 * JavaScript that runs inside the QuickJS sandbox before the model's program (run-program.ts).
 *
 * Input: `write(piece, printedChars)` (a host function), the `input` field as JSON text (or
 * undefined) and the output budget in characters.
 * Output: `{ describeResult, describeError }`, two functions the host calls after the program.
 * Effect: defines the globals `console` (log, info, warn, error, debug) and `input`.
 *
 * `write` stays in this closure: the program cannot call it. The intrinsics used here are captured
 * before the program runs, so a program that replaces `JSON.stringify` fools only its own output.
 * Console output is capped here, inside the sandbox, so a program printing in a loop costs the host
 * nothing past the budget.
 */
export const SANDBOX_PRELUDE = String.raw`
(function setUpSandbox(write, inputJson, maxChars) {
  'use strict';
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const toText = String;
  const ErrorType = Error;
  const objectText = Object.prototype.toString;
  let kept = 0;

  function safeText(value) {
    try {
      return toText(value);
    } catch {
      return objectText.call(value);
    }
  }

  function describe(value) {
    if (typeof value === 'string') return value;
    if (value instanceof ErrorType) return value.name + ': ' + value.message;
    try {
      const json = stringify(value);
      if (json !== undefined) return json;
    } catch {}
    return safeText(value);
  }

  function print(...values) {
    let line;
    try {
      line = values.map(describe).join(' ') + '\n';
    } catch {
      line = '[unprintable]\n';
    }
    const room = maxChars - kept;
    const piece = room <= 0 ? '' : line.length > room ? line.slice(0, room) : line;
    kept += piece.length;
    write(piece, line.length);
  }

  globalThis.console = { log: print, info: print, warn: print, error: print, debug: print };
  globalThis.input = inputJson === undefined ? undefined : parse(inputJson);

  return {
    /** [kind, text (at most maxChars), full length]: kind "json", "string" (String(value)) or "undefined". */
    describeResult(value) {
      if (value === undefined) return ['undefined', '', 0];
      let kind = 'json';
      let text;
      try {
        text = stringify(value);
      } catch {}
      if (text === undefined) {
        kind = 'string';
        text = safeText(value);
      }
      return [kind, text.length > maxChars ? text.slice(0, maxChars) : text, text.length];
    },
    /** [name, message, the first lines of the stack]; a thrown non-error has no name. */
    describeError(error) {
      if (!(error instanceof ErrorType)) return ['', safeText(error), ''];
      const stack = typeof error.stack === 'string' ? error.stack.split('\n').filter((line) => line.trim() !== '').slice(0, 3).join('\n') : '';
      return [toText(error.name), toText(error.message), stack];
    },
  };
})
`;
