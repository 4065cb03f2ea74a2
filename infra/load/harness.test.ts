import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Runs a harness entry as `npm run` would and resolves with its exit code and output, or fails after `timeoutMs`. */
function runToExit(entry: string, args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: repoRoot, env: { ...process.env, REDIS_URL: inject('redisUrl') }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not exit within ${timeoutMs} ms (a handle kept it alive?)\n${stderr.slice(-3000)}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

// Benchmarks are not timed tests: these only check that the harnesses run end to end on a small load and exit by themselves.
describe('load harness and bench', () => {
  it('npm run loadtest: drives a small tool load, each run streamed on the POST that starts it, reports and exits', async () => {
    // --one-request: the bench's runs take 202 and a GET; these take the POST's own stream, through real workers.
    const result = await runToExit('infra/load/run-harness.ts', ['--runs', '3', '--concurrency', '2', '--scenario', 'tool', '--one-request', '--quiet'], 240_000);
    expect(result.stderr).not.toContain('open handles');
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toMatch(/scenario tool: 3 runs at concurrency 2/);
    expect(result.stdout).toMatch(/events lost 0, duplicated 0, out of order 0; errors 0/);
  }, 300_000);

  it('npm run bench -- --small: every scenario and baseline, printed next to its goal, then exits', async () => {
    const result = await runToExit('infra/load/bench.ts', ['--small'], 540_000);
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    for (const measurement of [
      'first token, 1 run at a time',
      'enqueue (POST → 202)',
      'approve → first continued token',
      'first token, tool scenario, 20 concurrent',
      'runs/s, tool scenario',
      'CPU time per 1,000 delivered tokens',
      'standalone tool executions/s',
      'SSE fan-out',
      'resume with Last-Event-ID',
      'HTML → markdown',
      'enqueue req/s vs GET /api/health req/s',
    ]) {
      expect(result.stdout).toContain(measurement);
    }
    // No lost, duplicated or out-of-order events in the fan-out.
    expect(result.stdout).toMatch(/\| events lost \| 0 \|/);
  }, 600_000);
});
