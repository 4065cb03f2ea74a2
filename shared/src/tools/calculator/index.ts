import { z } from 'zod';
import { defineToolType } from '../define-tool-type';
import { parseToolCall } from '../parse-tool-call';
import { closeCalculatorProcess, evaluateExpression, warmCalculatorProcesses } from './evaluate-expression';
import { calculatorTextZh } from './zh';

/** Long enough for any honest calculation, short enough to bound parsing work. */
export const MAX_EXPRESSION_LENGTH = 2_000;

const calculatorConfigSchema = z.object({
  precision: z
    .number()
    .int()
    .min(1)
    .max(20)
    .default(10)
    .describe('Significant digits in answers (1-20).'),
});

const calculatorInputSchema = z.object({
  expression: z
    .string()
    .min(1)
    .max(MAX_EXPRESSION_LENGTH)
    .describe(
      'A mathjs expression, e.g. "2 * (3 + 4)", "sin(pi / 4)", "5 inch to cm", "det([1, 2; 3, 4])" or "a = 3; b = 4; sqrt(a^2 + b^2)".',
    ),
});

/**
 * `calculator`: evaluates arithmetic, algebra on numbers, units and matrices with mathjs, in a
 * limited instance (no import, createUnit, parse/evaluate, symbolic functions or config) in a
 * child process with a time and memory budget; plain arithmetic (numbers, + - * / and parentheses)
 * in the worker itself (plain-arithmetic.ts).
 */
export const calculatorToolType = defineToolType({
  type: 'calculator',
  label: 'Calculator',
  summary: 'Evaluates math expressions (arithmetic, functions, units, matrices) exactly and safely.',
  translations: { zh: calculatorTextZh },
  configSchema: calculatorConfigSchema,
  inputSchema: calculatorInputSchema,
  describe: (config) =>
    'Evaluate a math expression with mathjs syntax: arithmetic, powers (^), functions such as sqrt, log, sin, ' +
    'factorial, combinations, mean, unit conversion ("5 km to mile") and matrices. Use it instead of doing ' +
    `arithmetic in your head. Answers are rounded to ${config.precision} significant digits.`,
  effect: { possible: ['none'], summary: 'Pure computation: no effect outside the call.' },
  execute: async (input, config, context) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const parsed = parseToolCall({ input: calculatorInputSchema, config: calculatorConfigSchema }, { input, config, durationMs: elapsed });
    if (!parsed.ok) return parsed.result;
    const { expression } = parsed.input;
    const outcome = await evaluateExpression(expression, { precision: parsed.config.precision, signal: context.signal });
    if (!outcome.ok) {
      return { success: false, error: `Could not evaluate "${expression}": ${outcome.error}`, metadata: { durationMs: elapsed() } };
    }
    return { success: true, data: { expression, result: outcome.result }, metadata: { durationMs: elapsed() } };
  },
  warm: warmCalculatorProcesses,
  dispose: closeCalculatorProcess,
});
