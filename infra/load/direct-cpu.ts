import { directBaseline } from './baselines';

/**
 * `node --import tsx infra/load/direct-cpu.ts LLM_URL RUNS CONCURRENCY [WARM_UP_RUNS]`: the direct
 * `streamText` baseline in a process of its own, so its CPU time is not mixed with the fake model's
 * or the harness's. Prints { cpuMs, runs } as JSON; the CPU counted is the timed runs', not module
 * loading nor the warm-up runs before them (a fresh process's first 600 runs cost up to ×1.8 more
 * per run than the ones after: half-optimized code).
 */
const [llmUrl, runs = '100', concurrency = '20', warmUpRuns = '0'] = process.argv.slice(2);
if (Number(warmUpRuns) > 0) await directBaseline(llmUrl!, Number(warmUpRuns), Number(concurrency));
const before = process.cpuUsage();
const result = await directBaseline(llmUrl!, Number(runs), Number(concurrency));
const used = process.cpuUsage(before);
console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, runs: Number(runs), ttftMs: result.ttftMs }));
