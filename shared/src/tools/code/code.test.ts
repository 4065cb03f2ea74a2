import { DEBUG_SYNC, newQuickJSWASMModule, TestQuickJSWASMModule } from 'quickjs-emscripten';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolContext, ToolResult } from '../define-tool-type';
import { BACKSTOP_GRACE_MS, closeCodeThreads, warmCodeThreads } from './code-threads';
import { codeToolType, type CodeConfig } from './index';
import type { CodeToolData } from './program-result';
import { runProgram, type ProgramTask } from './run-program';

afterAll(async () => {
  await closeCodeThreads();
});

function context(signal = new AbortController().signal): ToolContext {
  return { userId: null, runId: null, sessionId: null, toolCallId: null, signal, allowPrivateNetworks: false, services: {} };
}

function run(code: string, options: { input?: unknown; config?: Partial<CodeConfig>; signal?: AbortSignal } = {}): Promise<ToolResult> {
  return codeToolType.execute({ code, input: options.input }, codeToolType.configSchema.parse(options.config ?? {}), context(options.signal));
}

const dataOf = (result: ToolResult) => result.data as CodeToolData;

describe('code tool', () => {
  it('has defaults, JSON Schemas and a description that states its limits', () => {
    expect(codeToolType.configSchema.parse({})).toEqual({ timeoutMs: 2_000, memoryLimitMb: 32, maxOutputChars: 20_000 });
    expect(codeToolType.configSchema.safeParse({ timeoutMs: 10_001 }).success).toBe(false);
    expect(codeToolType.configSchema.safeParse({ memoryLimitMb: 129 }).success).toBe(false);
    expect(z.toJSONSchema(codeToolType.inputSchema, { io: 'input' })).toMatchObject({ type: 'object', required: ['code'] });
    expect(codeToolType.describe(codeToolType.configSchema.parse({ timeoutMs: 5_000 }))).toMatch(/last expression is the result.*5000 ms, 32 MB/s);
    expect(codeToolType.inputSchema.safeParse({ code: '1', input: 'x'.repeat(100_001) }).success).toBe(false);
    expect(codeToolType.inputSchema.safeParse({ code: 'x'.repeat(20_001) }).success).toBe(false);
  });

  it('parses a CSV passed as input and sums a column', async () => {
    const csv = 'item,qty,price\napples,3,0.5\npears,2,1.25\nplums,10,0.2\n';
    const program = `
      const [header, ...rows] = input.trim().split('\\n').map((line) => line.split(','));
      const total = rows.reduce((sum, row) => sum + Number(row[1]) * Number(row[2]), 0);
      ({ columns: header, rows: rows.length, total })`;
    const result = await run(program, { input: csv });
    expect(result).toMatchObject({ success: true, data: { result: { columns: ['item', 'qty', 'price'], rows: 3, total: 6 } } });
    expect(result.metadata.durationMs).toBeTypeOf('number');
  });

  it('gives the program its input as the global `input`, any JSON', async () => {
    const input = { people: [{ name: 'Ada', born: 1815 }, { name: 'Grace', born: 1906 }] };
    expect(await run('input.people.map((person) => `${person.name} (${person.born})`).join(", ")', { input })).toMatchObject({ success: true, data: { result: 'Ada (1815), Grace (1906)' } });
    expect(await run('typeof input')).toMatchObject({ success: true, data: { result: 'undefined' } });
  });

  it('captures console output beside the result, and awaits a promise it ends with', async () => {
    const result = await run(`
      console.log('rows:', 3, { ok: true }, [1, 2]);
      console.error(new RangeError('just printed'));
      (async () => { await null; console.info('after await'); return 42; })()`);
    expect(result).toMatchObject({ success: true, data: { result: 42, logs: 'rows: 3 {"ok":true} [1,2]\nRangeError: just printed\nafter await' } });
    expect(dataOf(await run('console.log("only logs")'))).toEqual({ logs: 'only logs' });
  });

  it('returns a thrown error as a failed call with its name, message and where it was thrown, after what the program printed', async () => {
    const result = await run('console.log("parsing");\nconst rows = null;\nrows.length');
    expect(result.success).toBe(false);
    expect(result.error).toBe("The program threw TypeError: cannot read property 'length' of null\n    at <eval> (program.js:3:5)\nConsole output before it stopped:\nparsing");
    // The program is the model's to correct: the worker invites another call (tool-output.ts).
    expect(result.metadata.fixable).toBe(true);
    expect((await run('throw "plain text"')).error).toMatch(/^The program threw a value that is not an Error: plain text/);
    expect((await run('return 1')).error).toMatch(/SyntaxError: return not in a function[\s\S]*end the program with the expression whose value you want/);
    expect((await run('const value = await Promise.resolve(1); value')).error).toMatch(/^The program threw SyntaxError[\s\S]*top-level await is not available/);
  });

  it('stops an endless loop at the deadline, off this event loop: a timer here keeps ticking meanwhile', async () => {
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 20);
    const started = performance.now();
    const result = await run('let n = 0; for (;;) n++;');
    clearInterval(timer);
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/^The program was stopped after 2000 ms/) });
    expect(elapsed).toBeGreaterThanOrEqual(1_990);
    expect(elapsed).toBeLessThan(2_000 + BACKSTOP_GRACE_MS);
    // About 100 ticks of 20 ms in 2 s; none waited behind the loop.
    expect(ticks.length).toBeGreaterThan(50);
    const gaps = ticks.slice(1).map((tick, index) => tick - ticks[index]!);
    expect(Math.max(...gaps)).toBeLessThan(500);
  });

  it.each([
    ['arrays', 'const a = []; for (;;) a.push(new Array(1e6))'],
    ['strings', 'const b = []; for (;;) b.push("x".repeat(1024 * 1024))'],
  ])('refuses a memory bomb of %s with a clear error, and this process stays fine', async (_kind, program) => {
    const before = process.memoryUsage().rss;
    const result = await run(program);
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/^The program ran out of memory \(its limit is 32 MB\)/) });
    // The sandbox's memory is capped near its limit (32 MB + the module's own 16 MB), far from the GBs a bomb asks for.
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
    expect(await run('6 * 7')).toMatchObject({ success: true, data: { result: 42 } });
  });

  it.each([
    ['require', 'require("node:fs")', /ReferenceError: 'require' is not defined/],
    ['fetch', 'fetch("http://127.0.0.1:1/")', /ReferenceError: 'fetch' is not defined/],
    ['process', 'process.exit(1)', /ReferenceError: 'process' is not defined/],
    ['the Function constructor', 'globalThis.constructor.constructor("return process")().env', /ReferenceError: 'process' is not defined/],
    ['a module', 'import fs from "node:fs"; fs', /SyntaxError[\s\S]*There are no modules here/],
    ['a dynamic import', 'import("node:fs")', /could not load module 'node:fs'[\s\S]*There are no modules here/],
  ])('gives the program no way out: %s is unavailable', async (_name, program, error) => {
    const result = await run(program);
    expect(result.success).toBe(false);
    expect(result.error).toMatch(error);
  });

  it('has only the language itself: no host objects, timers or WebAssembly', async () => {
    const result = await run('["require", "process", "fetch", "setTimeout", "setInterval", "WebAssembly", "XMLHttpRequest", "Buffer", "std", "os"].filter((name) => typeof globalThis[name] !== "undefined")');
    expect(result).toMatchObject({ success: true, data: { result: [] } });
  });

  it('cuts output at maxOutputChars with a note, the result first', async () => {
    const config = { maxOutputChars: 1_000 };
    const logged = await run('for (let i = 0; i < 500; i++) console.log("line " + i); "done"', { config });
    expect(logged.success).toBe(true);
    const data = dataOf(logged);
    expect(data.result).toBe('done');
    expect(data.logs!.length).toBeLessThanOrEqual(1_000 - '"done"'.length);
    expect(data.logs).toMatch(/^line 0\nline 1\n/);
    expect(data.notes).toEqual([expect.stringMatching(/^Console output cut: 4390 characters printed, the first 994 shown/)]);

    const big = dataOf(await run('Array.from({ length: 1000 }, (_, i) => i)', { config }));
    expect(big.result).toBeTypeOf('string');
    expect((big.result as string).length).toBe(1_000);
    expect(big.notes).toEqual([expect.stringMatching(/^The result was cut: its first 1000 of 3891 characters of JSON are shown/)]);
  });

  it('reports a value JSON cannot express as its String()', async () => {
    expect(dataOf(await run('(function square(x) { return x * x })'))).toMatchObject({ result: 'function square(x) { return x * x }', notes: [expect.stringMatching(/shown as String\(value\)/)] });
    expect(dataOf(await run('const cycle = { name: "loop" }; cycle.self = cycle; cycle'))).toMatchObject({ result: '[object Object]' });
    expect(dataOf(await run('2n ** 70n'))).toMatchObject({ result: '1180591620717411303424' });
  });

  it('refuses recursion deeper than its stack with a clear error, before it can reach the thread\'s own stack', async () => {
    for (const program of ['function down(n) { return n === 0 ? 0 : down(n - 1) + 1 } down(1e6)', 'let nested = {}; for (let i = 0; i < 1e5; i++) nested = { nested }; JSON.stringify(nested).length']) {
      expect(await run(program)).toMatchObject({ success: false, error: expect.stringMatching(/^The program recursed too deeply \(InternalError: stack overflow/) });
    }
    expect(await run('function down(n) { return n === 0 ? 0 : down(n - 1) + 1 } down(1000)')).toMatchObject({ success: true, data: { result: 1000 } });
  });

  it('keeps nothing between calls', async () => {
    expect(await run('globalThis.leak = 42; var leaked = 1; leak')).toMatchObject({ success: true, data: { result: 42 } });
    expect(await run('[typeof leak, typeof leaked]')).toMatchObject({ success: true, data: { result: ['undefined', 'undefined'] } });
  });

  it('stops a program when the call is cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const result = await run('for (;;);', { config: { timeoutMs: 10_000 }, signal: controller.signal });
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/^Cancelled/), metadata: { fixable: false } });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('ends a native operation QuickJS cannot interrupt by replacing its thread, and goes on', async () => {
    // Joining 4 billion empty slots never reaches an interrupt check; the pool's backstop ends it.
    const started = performance.now();
    const result = await run('new Array(2 ** 32 - 1).join("").length', { config: { timeoutMs: 200 } });
    expect(result).toMatchObject({ success: false, error: expect.stringMatching(/^The program was stopped after 200 ms/) });
    expect(performance.now() - started).toBeLessThan(200 + BACKSTOP_GRACE_MS + 2_000);
    expect(await run('"still here"')).toMatchObject({ success: true, data: { result: 'still here' } });
  });

  it('answers 200 calls in a row without the process growing', async () => {
    await warmCodeThreads();
    for (let index = 0; index < 20; index++) await run(`${index} * 2`);
    const before = process.memoryUsage().rss;
    for (let index = 0; index < 200; index++) {
      const result = await run(index % 10 === 0 ? 'throw new Error("no")' : 'const rows = Array.from({ length: 1000 }, (_, i) => ({ i })); console.log(rows.length); rows.at(-1).i + input', { input: index });
      expect(result.success).toBe(index % 10 !== 0);
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(40 * 1024 * 1024);
  });
});

describe('runProgram', () => {
  it('disposes every runtime, context and handle, whatever the program does (QuickJS debug build leak check)', async () => {
    const engine = new TestQuickJSWASMModule(await newQuickJSWASMModule(DEBUG_SYNC));
    const task = (code: string, extra: Partial<ProgramTask> = {}): ProgramTask => ({ code, timeoutMs: 1_000, memoryLimitMb: 32, maxOutputChars: 200, ...extra });
    const cancelled = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(cancelled, 0, 1);
    const programs: [ProgramTask, string][] = [
      [task('1 + 1'), 'ok'],
      [task('console.log("x".repeat(500)); input.a', { inputJson: '{"a":[1,2]}' }), 'ok'],
      [task('throw new Error("no")'), 'threw'],
      [task('syntax error here'), 'threw'],
      [task('Promise.reject(new TypeError("rejected"))'), 'threw'],
      [task('(async () => 1)()'), 'ok'],
      [task('new Promise(() => {})'), 'unsettled'],
      [task('for (;;);', { timeoutMs: 20 }), 'timeout'],
      [task('(async () => { for (;;) await null })()', { timeoutMs: 20 }), 'timeout'],
      [task('1', { cancel: cancelled }), 'cancelled'],
      [task('Symbol("s")'), 'ok'],
      [task('JSON.parse("{bad")'), 'threw'],
    ];
    for (let round = 0; round < 200 / programs.length; round++) {
      for (const [program, expected] of programs) {
        const { outcome, reusable } = runProgram(engine, program);
        expect(outcome.ok ? 'ok' : outcome.failure.reason, program.code).toBe(expected);
        expect(reusable, program.code).toBe(true);
      }
    }
    // (Not TestQuickJSWASMModule's assertNoMemoryAllocated: in 0.32 its set keeps runtimes after they are disposed.)
    expect(engine.runtimes.size).toBeGreaterThan(150);
    expect([...engine.runtimes].filter((runtime) => runtime.alive)).toEqual([]);
    expect(engine.contexts.size).toBe(0);
    // The debug build's leak sanitizer: every handle, value and allocation of every run was freed.
    expect(engine.getFFI().QTS_RecoverableLeakCheck()).toBe(0);
  }, 60_000);
});
