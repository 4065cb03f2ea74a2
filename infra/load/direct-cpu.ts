import { directBaseline } from './baselines';

/**
 * `node --import tsx infra/load/direct-cpu.ts LLM_URL RUNS CONCURRENCY`: the direct `streamText`
 * baseline in a process of its own, so its CPU time is not mixed with the fake model's or the
 * harness's. Prints { cpuMs, runs } as JSON; the CPU counted is the baseline's, not module loading.
 */
const [llmUrl, runs = '100', concurrency = '20'] = process.argv.slice(2);
const before = process.cpuUsage();
const result = await directBaseline(llmUrl!, Number(runs), Number(concurrency));
const used = process.cpuUsage(before);
console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, runs: Number(runs), ttftMs: result.ttftMs }));
