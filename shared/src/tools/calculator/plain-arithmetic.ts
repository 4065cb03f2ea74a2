import type { EvaluationOutcome } from './evaluate-expression';

/**
 * Plain arithmetic (numbers, + - * /, signs and parentheses) is evaluated in the calling process
 * rather than the calculator's child process: each of its operations is one floating-point
 * operation, so its time and memory are linear in the expression (at most MAX_EXPRESSION_LENGTH
 * characters), and there is nothing to kill. That is most of what a model asks a calculator, and
 * the child process's round trip cost more than the calculation (docs/benchmarks.md). Anything
 * else (functions, units, matrices, powers, variables, implicit multiplication, line breaks) and
 * anything that does not parse goes to the child process, whose mathjs answers it, errors included.
 *
 * The answer is what mathjs gives for the same expression: the same operations in the same order
 * (left to right, unary signs binding tighter than * and /), formatted as mathjs formats a number
 * (`formatLikeMathjs`); calculator.test.ts checks both against mathjs on generated expressions. This
 * is hand-written rather than mathjs's own parser so the worker does not load mathjs (~70 MB).
 */

/** Deeper nesting than any honest calculation; past it the child process answers. */
const MAX_NESTING = 100;
const NUMBER = /(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?/y;

/** The value of a plain arithmetic expression, or undefined when it is anything else. */
function evaluatePlain(expression: string): number | undefined {
  let position = 0;
  let depth = 0;
  const skipSpaces = () => {
    while (expression[position] === ' ' || expression[position] === '\t') position++;
  };
  const peek = () => {
    skipSpaces();
    return expression[position];
  };
  // Each rule returns undefined for anything outside the grammar, which ends the whole attempt.
  /** `operand (operator operand)*`, applied left to right: + and -, or * and /. */
  const leftToRight =
    (operand: () => number | undefined, operators: string, apply: (operator: string, left: number, right: number) => number) => (): number | undefined => {
      let value = operand();
      for (let operator = peek(); value !== undefined && operator !== undefined && operators.includes(operator); operator = peek()) {
        position++;
        const right = operand();
        if (right === undefined) return undefined;
        value = apply(operator, value, right);
      }
      return value;
    };
  const signed = (): number | undefined => {
    const sign = peek();
    if (sign !== '+' && sign !== '-') return operand();
    position++;
    if (++depth > MAX_NESTING) return undefined;
    const value = signed();
    depth--;
    return value === undefined ? undefined : sign === '-' ? -value : value;
  };
  const operand = (): number | undefined => {
    if (peek() === '(') {
      position++;
      if (++depth > MAX_NESTING) return undefined;
      const value = sum();
      depth--;
      if (value === undefined || peek() !== ')') return undefined;
      position++;
      return value;
    }
    NUMBER.lastIndex = position;
    const match = NUMBER.exec(expression);
    if (!match) return undefined;
    position += match[0].length;
    return Number(match[0]);
  };
  const product = leftToRight(signed, '*/', (operator, left, right) => (operator === '*' ? left * right : left / right));
  const sum = leftToRight(product, '+-', (operator, left, right) => (operator === '+' ? left + right : left - right));
  const value = sum();
  return value !== undefined && peek() === undefined ? value : undefined;
}

/**
 * `value` as mathjs's `format(value, { precision })` writes a number: its shortest decimal form
 * rounded half up to `precision` significant digits, trailing zeros dropped, in exponential
 * notation below 1e-3 and from 1e5 on.
 */
export function formatLikeMathjs(value: number, precision: number): string {
  if (!Number.isFinite(value)) return String(value);
  const [, sign = '', mantissa = '0', exponentText] = /^(-?)(\d+(?:\.\d*)?)(?:e([+-]?\d+))?$/.exec(String(value))!;
  const point = mantissa.indexOf('.');
  const allDigits = mantissa.replace('.', '');
  const significant = allDigits.replace(/^0+/, '');
  // The exponent of the first significant digit.
  let exponent = Number(exponentText ?? 0) + (point === -1 ? mantissa.length : point) - 1 - (allDigits.length - significant.length);
  let digits = [...significant.replace(/0+$/, '')].map(Number);
  if (digits.length === 0) {
    digits = [0];
    exponent = 0;
  }
  if (digits.length > precision) {
    const roundUp = digits[precision]! >= 5;
    digits = digits.slice(0, precision);
    for (let index = precision - 1; roundUp; index--) {
      if (index < 0) {
        digits.unshift(1);
        exponent++;
        break;
      }
      if (digits[index]! < 9) {
        digits[index]!++;
        break;
      }
      digits[index] = 0;
    }
  }
  while (digits.length > 1 && digits.at(-1) === 0) digits.pop();
  if (exponent < -3 || exponent >= 5) {
    const [first, ...rest] = digits;
    return `${sign}${first}${rest.length ? `.${rest.join('')}` : ''}e${exponent >= 0 ? '+' : ''}${exponent}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits.join('')}`;
  const whole = digits.slice(0, exponent + 1).join('').padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1).join('');
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * The outcome of a plain arithmetic expression, formatted as the child process would; undefined for
 * any other expression (the caller sends it to the child process).
 * @example evaluatePlainArithmetic('2 * (3 + 4)', 10) // { ok: true, result: '14' }
 */
export function evaluatePlainArithmetic(expression: string, precision: number): EvaluationOutcome | undefined {
  const value = evaluatePlain(expression);
  return value === undefined ? undefined : { ok: true, result: formatLikeMathjs(value, precision) };
}
