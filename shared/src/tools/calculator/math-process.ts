/**
 * Child-process side of the calculator: a limited mathjs instance that evaluates one expression
 * per IPC message. It is a separate process, not a worker thread, because a single huge
 * allocation (`1:1e9`) makes V8 abort the whole process even under worker resourceLimits;
 * here it only kills this child, and runaway CPU (exponential recursion) is killed the same way.
 *
 * Run by Node directly (type stripping), not through tsx or a bundler: import only packages
 * here, never sibling files, and use only erasable TypeScript syntax.
 *
 * Input:  EvaluateRequest messages { id, expression, precision } over the IPC channel.
 * Output: { type: 'ready' } once, then one EvaluateResponse per request.
 */
import { all, create, type MathNode } from 'mathjs';

export type EvaluateRequest = { id: number; expression: string; precision: number };
export type EvaluateResponse = { id: number; ok: true; result: string } | { id: number; ok: false; error: string };

/**
 * Functions an expression must never reach: they compile or parse new code, change the shared
 * instance (`config`, `import`, `createUnit`), or work on symbolic code. `typed` and `chain`
 * cannot be overridden without breaking mathjs's lazy factories, so they are blocked by name only.
 */
export const BLOCKED_FUNCTIONS = [
  'import', 'createUnit', 'evaluate', 'parse', 'compile', 'parser', 'Parser', 'simplify', 'simplifyConstant',
  'simplifyCore', 'derivative', 'resolve', 'rationalize', 'symbolicEqual', 'leafCount', 'reviver', 'replacer', 'config',
  'typed', 'chain', 'help',
] as const;

// mathjs types `all` as optional (tree-shaking builds); this process needs the full set.
if (!all) throw new Error('mathjs factory set "all" is missing');
const math = create(all, { number: 'number' });
// Captured before the overrides below: these are the only ways in, and only this file has them.
const parseExpression = math.parse;

const OVERRIDABLE = BLOCKED_FUNCTIONS.filter((name) => name !== 'typed' && name !== 'chain' && name !== 'Parser');
math.import(
  Object.fromEntries(
    OVERRIDABLE.map((name) => [
      name,
      () => {
        throw new Error(`Function ${name} is disabled`);
      },
    ]),
  ),
  { override: true },
);

const blocked = new Set<string>(BLOCKED_FUNCTIONS);

function evaluate(expression: string, precision: number): string {
  const node: MathNode = parseExpression(expression);
  // Refuse blocked names anywhere in the tree, called or merely referenced (`f = evaluate`).
  node.traverse((child) => {
    if (math.isSymbolNode(child) && blocked.has(child.name)) throw new Error(`Function ${child.name} is disabled`);
  });
  // A fresh scope per call: assignments never leak between evaluations.
  const value: unknown = node.compile().evaluate(new Map());
  const result = math.isResultSet(value) ? value.entries.at(-1) : value;
  if (result === undefined) throw new Error('The expression produced no result (every statement ends with ";")');
  if (typeof result === 'function') throw new Error('The expression evaluates to a function, not a value');
  return typeof result === 'string' ? result : math.format(result, { precision });
}

process.on('message', (request: EvaluateRequest) => {
  let response: EvaluateResponse;
  try {
    response = { id: request.id, ok: true, result: evaluate(request.expression, request.precision) };
  } catch (error) {
    response = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  process.send?.(response);
});
// The parent went away (or closed us): nothing left to serve.
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
