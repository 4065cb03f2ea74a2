import { writeFileSync, mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, resolve } from 'node:path';
import { startFakeLlm } from '../fake-llm/server';
import { ApiClient } from '../testing/api-client';
import { startProcessStack, type ProcessStack } from '../testing/process-stack';
import { directBaseline, rawBullmqBaseline, redisRtt, toolExecutionBaseline } from './baselines';
import { driveRuns } from './drive-runs';
import { parseHarnessOptions } from './options';
import { buildReport, printReport, writeChart } from './report';
import { answerText, LOAD_TOOL_SLUG, scenarioScript } from './scenarios';

/**
 * `npm run loadtest`: starts agentq (API + K worker processes on a fresh database) unless --url
 * is given, drives runs through the real HTTP API and SSE, measures the baselines in the same
 * run, prints the comparison and writes JSON + an SVG chart.
 */
async function main() {
  const options = parseHarnessOptions(process.argv.slice(2));
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const llm = await startFakeLlm({ script: scenarioScript(options), recordRequests: false });
  let stack: ProcessStack | undefined;
  let baseUrl = options.url;
  let credentials = { email: options.email ?? '', password: options.password ?? '' };
  try {
    if (!baseUrl) {
      console.error(`starting agentq: API + ${options.workers} worker process(es)...`);
      const profileEnv: Record<string, string> = options.profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(options.profile)}` } : {};
      if (options.profile) mkdirSync(resolve(options.profile), { recursive: true });
      stack = await startProcessStack({
        workers: options.workers,
        compiled: true,
        env: { LOG_LEVEL: 'info', REDIS_URL: redisUrl, DATABASE_POOL_WARM: '1', ...profileEnv },
        workerEnv: { WORKER_CONCURRENCY: String(options.workerConcurrency) },
      });
      baseUrl = stack.apiUrl;
      credentials = stack.admin;
    }
    const client = await ApiClient.login(baseUrl, credentials);
    const model = await client.post('/api/models', { name: `load ${Date.now()}`, baseUrl: llm.url, modelId: 'load' });
    if (model.status !== 201) throw new Error(`could not create the model: ${JSON.stringify(model.body)}`);
    const agent = await client.post('/api/agents', { name: `load ${options.scenario} ${Date.now()}`, modelId: model.body.id, maxSteps: 4, tools: [] });
    const tool = await client.post('/api/agent-tools', { name: 'Load calc', slug: `${LOAD_TOOL_SLUG}`, type: 'calculator', needsApproval: options.scenario === 'approval' });
    const toolId = tool.status === 201 ? tool.body.id : (await client.get('/api/agent-tools')).body.items.find((item: { slug: string }) => item.slug === LOAD_TOOL_SLUG).id;
    await client.put(`/api/agent-tools/${toolId}`, { needsApproval: options.scenario === 'approval', enabled: true });
    await client.put(`/api/agents/${agent.body.id}`, { tools: [{ toolId }] });
    await client.put(`/api/agents/${agent.body.id}`, { isDefault: true });

    const { samples, wallMs } = await driveRuns(client, options, answerText(options));

    console.error('measuring baselines (direct streamText, raw BullMQ, tool executions, Redis RTT)...');
    const direct = await directBaseline(llm.url, Math.min(options.runs, 200), options.concurrency, options.scenario === 'tool' || options.scenario === 'approval' ? LOAD_TOOL_SLUG : undefined);
    const rawBullmqJobsPerSec = await rawBullmqBaseline(redisUrl, 2000, options.workerConcurrency);
    if (options.scenario === 'approval') await client.put(`/api/agent-tools/${toolId}`, { needsApproval: false });
    const tools = await toolExecutionBaseline(client, toolId, Math.min(options.runs, 200), options.concurrency);
    const rtt = await redisRtt(redisUrl);

    const report = buildReport(options, samples, wallMs, { direct, rawBullmqJobsPerSec, toolJobsPerSec: tools.perSec, redisRttMs: rtt }, { cpus: cpus().length, node: process.version });
    printReport(report);
    if (options.out) {
      const out = resolve(options.out);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
      const chart = out.replace(/\.json$/i, '') + '.svg';
      writeChart(chart, report, samples);
      console.error(`wrote ${out} and ${chart}`);
    }
    process.exitCode = report.lostEvents + report.duplicateEvents + report.outOfOrderEvents > 0 ? 1 : 0;
  } finally {
    await stack?.stop();
    await llm.close();
  }
}

// `npm run loadtest -- scale ...`: the scale-out measurements (scale.ts) instead of one scenario.
(process.argv[2] === 'scale' ? import('./scale').then(({ runScale }) => runScale(process.argv.slice(3))) : main()).catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
