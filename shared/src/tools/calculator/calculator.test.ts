import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolContext, ToolResult } from '../define-tool-type';
import { CALCULATOR_POOL_SIZE, calculatorProcessIds, closeCalculatorProcess, evaluateExpression, warmCalculatorProcesses } from './evaluate-expression';
import { all, create } from 'mathjs';
import { calculatorToolType } from './index';
import { evaluatePlainArithmetic, formatLikeMathjs } from './plain-arithmetic';

afterAll(async () => {
  await closeCalculatorProcess();
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function context(signal = new AbortController().signal): ToolContext {
  return { userId: null, runId: null, sessionId: null, toolCallId: null, signal, allowPrivateNetworks: false, services: {} };
}

function calculate(expression: string, precision?: number, signal?: AbortSignal): Promise<ToolResult> {
  return calculatorToolType.execute(
    { expression },
    calculatorToolType.configSchema.parse(precision === undefined ? {} : { precision }),
    context(signal),
  );
}

describe('calculator tool', () => {
  it('has defaults and JSON Schemas', () => {
    expect(calculatorToolType.configSchema.parse({})).toEqual({ precision: 10 });
    expect(calculatorToolType.configSchema.safeParse({ precision: 0 }).success).toBe(false);
    expect(calculatorToolType.configSchema.safeParse({ precision: 21 }).success).toBe(false);
    expect(z.toJSONSchema(calculatorToolType.configSchema, { io: 'input' })).toMatchObject({ type: 'object' });
    expect(z.toJSONSchema(calculatorToolType.inputSchema)).toMatchObject({ required: ['expression'] });
    expect(calculatorToolType.describe({ precision: 7 })).toMatch(/7 significant digits/);
  });

  it.each([
    ['2 * (3 + 4)', '14'],
    ['1 / 3', '0.3333333333'],
    ['0.1 + 0.2', '0.3'],
    ['2^10', '1024'],
    ['sqrt(-4)', '2i'],
    ['5!', '120'],
    ['combinations(5, 2)', '10'],
    ['cos(pi)', '-1'],
    ['log(100, 10)', '2'],
    ['mean([1, 2, 3, 4])', '2.5'],
    ['det([1, 2; 3, 4])', '-2'],
    ['[1, 2; 3, 4] * 2', '[[2, 4], [6, 8]]'],
    ['5 inch to cm', '12.7 cm'],
    ['a = 3; b = 4; sqrt(a^2 + b^2)', '5'],
    ['f(x) = x^2 + 1; f(3)', '10'],
    ['2 > 1', 'true'],
    ['1 / 0', 'Infinity'],
  ])('%s = %s', async (expression, expected) => {
    const result = await calculate(expression);
    expect(result).toMatchObject({ success: true, data: { expression, result: expected } });
    expect(result.metadata.durationMs).toBeTypeOf('number');
  });

  it('rounds to the configured precision', async () => {
    expect(await calculate('pi', 3)).toMatchObject({ data: { result: '3.14' } });
    expect(await calculate('pi', 20)).toMatchObject({ data: { result: '3.141592653589793' } });
    expect(await calculate('1/7', 4)).toMatchObject({ data: { result: '0.1429' } });
  });

  it('returns parse and evaluation errors as values', async () => {
    expect(await calculate('2 +')).toMatchObject({ success: false, error: expect.stringMatching(/Could not evaluate "2 \+"/) });
    expect(await calculate('unknownSymbol * 2')).toMatchObject({ success: false, error: expect.stringMatching(/Undefined symbol/) });
    expect(await calculate('a = 1;')).toMatchObject({ success: false, error: expect.stringMatching(/no result/) });
    expect(await calculate('f(x) = x')).toMatchObject({ success: false, error: expect.stringMatching(/function, not a value/) });
  });

  it('does not let variables leak between evaluations', async () => {
    expect(await calculate('leak = 42')).toMatchObject({ success: true });
    expect(await calculate('leak')).toMatchObject({ success: false, error: expect.stringMatching(/Undefined symbol leak/) });
  });

  it.each([
    'import({ x: 1 }, { override: true })',
    'evaluate("1 + 1")',
    'createUnit("foo", "1 m")',
    'parse("1 + 1")',
    'compile("1 + 1")',
    'simplify("x + x")',
    'derivative("x^2", "x")',
    'resolve(1)',
    'config({ number: "BigNumber" })',
    'typed("f", {})',
    'chain(3)',
    'help(sin)',
    'f = evaluate; f("2")',
    'g(x) = evaluate(x); g("1")',
    '[1, 2].constructor',
    'cos.constructor("return process")()',
  ])('refuses the dangerous call %s', async (expression) => {
    const result = await calculate(expression);
    expect(result.success).toBe(false);
  });

  it('keeps working after a refused config change (the shared instance is untouched)', async () => {
    await calculate('config({ number: "BigNumber" })');
    expect(await calculate('0.1 + 0.2')).toMatchObject({ data: { result: '0.3' } });
    expect(await evaluateExpression('typeOf(1)', { precision: 10 })).toEqual({ ok: true, result: 'number' });
  });

  it('stops a runaway computation and recovers', async () => {
    const started = performance.now();
    const outcome = await evaluateExpression('f(n) = n == 0 ? 0 : f(n - 1) + f(n - 1); f(60)', { precision: 10, timeoutMs: 300 });
    expect(outcome).toEqual({ ok: false, error: 'The calculation took longer than 300 ms and was stopped.' });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await calculate('1 + 1')).toMatchObject({ success: true, data: { result: '2' } });
  });

  it.each(['size(ones(20000, 20000))', 'size(1:1e9)'])('stops %s, which exhausts memory, without harming this process', async (expression) => {
    const outcome = await evaluateExpression(expression, { precision: 10, timeoutMs: 20_000 });
    expect(outcome).toEqual({ ok: false, error: expect.stringMatching(/more than \d+ MB of memory/) });
    expect(await calculate('2 * 3')).toMatchObject({ data: { result: '6' } });
  });

  it('honours cancellation through context.signal, also while the child process starts', async () => {
    await closeCalculatorProcess();
    const early = new AbortController();
    setTimeout(() => early.abort(), 5);
    expect(await calculate('sqrt(16)', 10, early.signal)).toMatchObject({ success: false, error: expect.stringMatching(/cancelled/) });
    await calculate('sqrt(4)');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await calculate('f(n) = n == 0 ? 0 : f(n - 1) + f(n - 1); f(60)', 10, controller.signal);
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/cancelled/) });
  });

  it('refuses over-long input', async () => {
    const result = await calculate('1+'.repeat(1_500) + '1');
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/Invalid input/) });
  });

  describe('plain arithmetic', () => {
    // The child process's instance, as math-process.ts creates it (the blocked functions do not matter here).
    const full = create(all!, { number: 'number' });
    const mathjsAnswer = (expression: string, precision: number) => full.format(full.evaluate(expression), { precision });

    it('is answered in this process, exactly as the child process would answer it', async () => {
      await closeCalculatorProcess();
      const expressions = ['6 * 7', '0.1 + 0.2', '1/3', '123456', '-(2 - 5) * 1e-7', '2 / 0', '0 / 0', '+-+3', '8 / 2 / 2', '1 - 2 - 3', '1e308 * 10', '((1.5))', '\t 99999.5 '];
      for (const precision of [1, 3, 5, 10, 20]) {
        for (const expression of expressions) {
          expect(evaluatePlainArithmetic(expression, precision), `${expression} at ${precision}`).toEqual({ ok: true, result: mathjsAnswer(expression, precision) });
          expect(await calculate(expression, precision)).toMatchObject({ success: true, data: { result: mathjsAnswer(expression, precision) } });
        }
      }
      // No child process was started for any of them.
      expect(calculatorProcessIds()).toEqual(Array(CALCULATOR_POOL_SIZE).fill(undefined));
    });

    it('agrees with mathjs on generated expressions and on how it writes numbers', () => {
      // A fixed-seed generator: the same cases every run.
      let seed = 42;
      const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      const pick = <T,>(items: T[]) => items[Math.floor(random() * items.length)]!;
      const number = () => pick([String(Math.floor(random() * 1000)), (random() * 10 ** Math.floor(random() * 12 - 6)).toPrecision(1 + Math.floor(random() * 17)), `${Math.floor(random() * 90) + 1}e${pick(['', '-', '+'])}${Math.floor(random() * 30)}`, `.${Math.floor(random() * 1000)}`]);
      const expression = (depth: number): string => {
        if (depth <= 0 || random() < 0.3) return pick(['', '-', '+', '- ']) + number();
        const inner = `${expression(depth - 1)} ${pick(['+', '-', '*', '/'])} ${expression(depth - 1)}`;
        return random() < 0.4 ? `(${inner})` : inner;
      };
      for (let index = 0; index < 3000; index++) {
        const text = expression(4);
        const precision = 1 + Math.floor(random() * 20);
        expect(evaluatePlainArithmetic(text, precision), `${text} at ${precision}`).toEqual({ ok: true, result: mathjsAnswer(text, precision) });
      }
      for (let index = 0; index < 3000; index++) {
        const value = (random() < 0.5 ? -1 : 1) * random() * 10 ** Math.floor(random() * 44 - 22);
        const rounded = random() < 0.3 ? Number(value.toPrecision(1 + Math.floor(random() * 4))) : value;
        const precision = 1 + Math.floor(random() * 20);
        expect(formatLikeMathjs(rounded, precision), `${rounded} at ${precision}`).toBe(full.format(rounded, { precision }));
      }
      for (const edge of [0, -0, 1, 9.5, 99.95, 999999.5, 0.00099995, 1e21, 1.7976931348623157e308, 5e-324, 0.001, 0.0001, 99999, 100000]) {
        for (const precision of [1, 2, 4, 10, 20]) expect(formatLikeMathjs(edge, precision), `${edge} at ${precision}`).toBe(full.format(edge, { precision }));
      }
    });

    it('leaves everything else to the child, which answers it as before', async () => {
      for (const expression of ['1 +', '2^10', 'sqrt(16)', '5 inch to cm', 'e', '2e', '2(3)', '2 3', '[1, 2] * 2', '7 % 3', 'a = 3; a * 2', '1:1e9', '1\n2', '0x1F', '1.2.3', '('.repeat(150) + '1' + ')'.repeat(150)]) {
        expect(evaluatePlainArithmetic(expression, 10), expression).toBeUndefined();
      }
      expect(await calculate('2^10')).toMatchObject({ success: true, data: { result: '1024' } });
      expect(await calculate('1 +')).toMatchObject({ success: false, error: expect.stringMatching(/Unexpected end of expression/) });
      expect(calculatorProcessIds().some((pid) => pid !== undefined)).toBe(true);
    });
  });

  describe('process pool', () => {
    const runaway = 'f(n) = n == 0 ? 0 : f(n - 1) + f(n - 1); f(60)';

    it('starts every child when warmed, before any call', async () => {
      await closeCalculatorProcess();
      expect(calculatorProcessIds().every((pid) => pid === undefined)).toBe(true);
      await warmCalculatorProcesses();
      const pids = calculatorProcessIds();
      expect(pids).toHaveLength(CALCULATOR_POOL_SIZE);
      expect(pids.every((pid) => typeof pid === 'number')).toBe(true);
    });

    it('keeps answering while one child burns its time budget', async () => {
      await warmCalculatorProcesses();
      const order: string[] = [];
      const slow = evaluateExpression(runaway, { precision: 10, timeoutMs: 3_000 }).then((outcome) => (order.push('runaway'), outcome));
      const quick = await Promise.all(['1 + 1', '2 * 3', '10 / 4'].map((expression) => evaluateExpression(expression, { precision: 10 }).then((outcome) => (order.push(expression), outcome))));
      expect(quick).toEqual([
        { ok: true, result: '2' },
        { ok: true, result: '6' },
        { ok: true, result: '2.5' },
      ]);
      expect(await slow).toEqual({ ok: false, error: 'The calculation took longer than 3000 ms and was stopped.' });
      // The quick ones did not wait behind the runaway.
      expect(order.at(-1)).toBe('runaway');
    });

    it('kills a child on timeout and replaces it at once, so the pool recovers warm', async () => {
      await warmCalculatorProcesses();
      const before = calculatorProcessIds();
      const outcome = await evaluateExpression(runaway, { precision: 10, timeoutMs: 300 });
      expect(outcome).toEqual({ ok: false, error: 'The calculation took longer than 300 ms and was stopped.' });
      const killed = before.find((pid) => !calculatorProcessIds().includes(pid));
      expect(killed).toBeTypeOf('number');
      await expect.poll(() => isAlive(killed!), { timeout: 5_000 }).toBe(false);
      // A replacement starts in the background without any call asking for it.
      await expect.poll(() => calculatorProcessIds().every((pid) => typeof pid === 'number'), { timeout: 15_000 }).toBe(true);
      const results = await Promise.all(Array.from({ length: 20 }, (_, index) => evaluateExpression(`${index} * 2`, { precision: 10 })));
      expect(results).toEqual(Array.from({ length: 20 }, (_, index) => ({ ok: true, result: String(index * 2) })));
    });
  });
});

