import { createInterface } from 'node:readline';
import { directBaseline } from './baselines';

/**
 * `node --import tsx infra/load/direct-cpu.ts LLM_URL CONCURRENCY [WARM_UP_RUNS]`: the direct
 * `streamText` baseline in a process of its own, so its CPU time is not mixed with the fake model's
 * or the harness's. After its warm-up it prints `ready`, then answers each `run N` line on stdin
 * with { cpuMs, runs } as JSON on one line: the CPU of those N runs only, not module loading nor the
 * warm-up (a fresh process's first 600 runs cost up to ×1.8 more per run than the ones after:
 * half-optimized code). It stays up between slices, so the bench can alternate them with its own.
 */
const [llmUrl, concurrency = '20', warmUpRuns = '0'] = process.argv.slice(2);
if (Number(warmUpRuns) > 0) await directBaseline(llmUrl!, Number(warmUpRuns), Number(concurrency));
console.log('ready');
for await (const line of createInterface({ input: process.stdin })) {
  const runs = Number(/^run (\d+)$/.exec(line.trim())?.[1]);
  if (!runs) break;
  const before = process.cpuUsage();
  await directBaseline(llmUrl!, runs, Number(concurrency));
  const used = process.cpuUsage(before);
  console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, runs }));
}
