import type { MathNode } from 'mathjs';
import type { EvaluationOutcome } from './evaluate-expression';

/**
 * Plain arithmetic (numbers, + - * /, signs and parentheses) is evaluated in the calling process
 * rather than the calculator's child process: each of its operations is one floating-point
 * operation, so its time and memory are linear in the expression (at most MAX_EXPRESSION_LENGTH
 * characters), and there is nothing to kill. That is most of what a model asks a calculator, and
 * the child process's round trip cost more than the calculation (docs/benchmarks.md). Anything
 * else (functions, units, matrices, powers, variables) goes to the child process.
 */

/** A cheap first sieve, before any parsing: digits, dots, exponents, the four operators, parentheses. */
const PLAIN_CHARACTERS = /^[\d\s.eE+\-*/()]+$/;
/** mathjs's names for the operations allowed; anything else in the tree sends the expression to the child. */
const PLAIN_OPERATIONS = new Set(['add', 'subtract', 'multiply', 'divide', 'unaryMinus', 'unaryPlus']);

type NumberMath = typeof import('mathjs/number');
let loading: Promise<NumberMath> | undefined;

/** mathjs's number-only build (the same parser and number formatting as the child's instance), loaded once. */
export function loadPlainArithmetic(): Promise<NumberMath> {
  loading ??= import('mathjs/number');
  return loading;
}

function isPlain(math: NumberMath, node: MathNode): boolean {
  if (math.isConstantNode(node)) return typeof node.value === 'number';
  if (math.isParenthesisNode(node)) return isPlain(math, node.content);
  if (math.isOperatorNode(node)) return PLAIN_OPERATIONS.has(node.fn) && node.args.every((arg) => isPlain(math, arg));
  return false;
}

/**
 * The outcome of a plain arithmetic expression, formatted as the child process formats it; undefined
 * for any other expression (the caller sends it to the child process). A syntax error of an
 * expression made only of plain characters is answered here, with mathjs's own message.
 * @example await evaluatePlainArithmetic('2 * (3 + 4)', 10) // { ok: true, result: '14' }
 */
export async function evaluatePlainArithmetic(expression: string, precision: number): Promise<EvaluationOutcome | undefined> {
  if (!PLAIN_CHARACTERS.test(expression)) return undefined;
  const math = await loadPlainArithmetic();
  try {
    const node = math.parse(expression);
    if (!isPlain(math, node)) return undefined;
    const value: unknown = node.compile().evaluate();
    return { ok: true, result: math.format(value, { precision }) };
  } catch (error) {
    // A syntax error, or a nesting too deep for the stack: the child process would say the same.
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
