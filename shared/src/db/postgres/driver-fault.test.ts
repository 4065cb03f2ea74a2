import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../testing';
import { isPostgresNullSocketFault } from './driver-fault';

const fixture = fileURLToPath(new URL('./driver-fault.fixture.ts', import.meta.url));

function runFixture(mode: 'guarded' | 'unguarded'): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, testDatabaseUrl(), mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('postgres.js null-socket fault (a connection killed inside a transaction)', () => {
  it('crashes a bare process: the driver bug is still there (remove the guard once this fails)', async () => {
    // A race inside the driver: about one bare run in three dies first of its transaction's
    // CONNECTION_CLOSED rejection, left unhandled (a guarded process logs that one and goes on), before
    // the deferred write can fault. The bug is there when any of eight runs shows the fault.
    let bare = await runFixture('unguarded');
    for (let tries = 1; tries < 8 && !bare.output.includes('nextWrite'); tries++) bare = await runFixture('unguarded');
    const { code, output } = bare;
    expect(code).not.toBe(0);
    expect(output).toContain("Cannot read properties of null (reading 'write')");
    expect(output).toContain('nextWrite');
  }, 30_000);

  it('a guarded process survives, replaces the pool and answers every later query', async () => {
    const { code, output } = await runFixture('guarded');
    expect(output).toContain('database pool replaced');
    expect(output).not.toContain('uncaught exception; exiting');
    const report = JSON.parse(output.split('\n').find((line) => line.includes('"result":"alive"'))!);
    expect(report).toEqual({ result: 'alive', failure: 'CONNECTION_CLOSED', answers: [0, 1, 2, 3, 4, 5] });
    expect(code).toBe(0);
  });

  it('recognises only that exception', () => {
    const fault = new TypeError("Cannot read properties of null (reading 'write')");
    fault.stack = `TypeError: ${fault.message}\n    at Immediate.nextWrite (file:///app/node_modules/postgres/src/connection.js:255:22)\n    at process.processImmediate (node:internal/timers:485:21)`;
    expect(isPostgresNullSocketFault(fault)).toBe(true);
    const elsewhere = new TypeError(fault.message);
    elsewhere.stack = `TypeError: ${fault.message}\n    at nextWrite (file:///app/src/mine.js:1:1)`;
    expect(isPostgresNullSocketFault(elsewhere)).toBe(false);
    expect(isPostgresNullSocketFault(new Error(fault.message))).toBe(false);
  });
});
