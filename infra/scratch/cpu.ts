import { readFileSync } from 'node:fs';
import { fillerText, toolResultsSinceLastUserMessage, type Script } from '../fake-llm/scripts';
import { startFakeLlm } from '../fake-llm/server';
import { ApiClient } from '../testing/api-client';
import { startProcessStack } from '../testing/process-stack';
import { driveRuns } from '../load/drive-runs';
import { parseHarnessOptions } from '../load/options';
import { percentiles } from '../load/stats';

function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
let tool = false;
const script: Script = (request) => {
  if (tool && toolResultsSinceLastUserMessage(request).length === 0) return { toolCalls: [{ name: 'calc', input: { expression: '6 * 7' } }], latency: { timeToFirstTokenMs: 100, interTokenMs: 10 } };
  return { text: fillerText(50), latency: { timeToFirstTokenMs: 100, interTokenMs: 10, tokenCount: 50 } };
};
const llm = await startFakeLlm({ script, recordRequests: false });
const stack = await startProcessStack({ workers: 2, compiled: true, env: { LOG_LEVEL: 'info', DATABASE_POOL_WARM: '1', ...(process.env.PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.PROF}` } : {}) }, workerEnv: { WORKER_CONCURRENCY: '50' } });
const pids = [stack.api.child.pid!, ...stack.workers.map((w) => w.child.pid!)];
try {
  const client = await ApiClient.login(stack.apiUrl, stack.admin);
  const model = await client.post('/api/models', { name: 'bench', baseUrl: llm.url, modelId: 'bench' });
  const calc = await client.post('/api/agent-tools', { name: 'Bench calc', slug: 'calc', type: 'calculator' });
  await client.post('/api/agents', { name: 'bench', modelId: model.body.id, maxSteps: 4, tools: [{ toolId: calc.body.id }], isDefault: true });
  const opts = (scenario: string, runs: number, c: number) => parseHarnessOptions(['--scenario', scenario, '--runs', String(runs), '--concurrency', String(c), '--quiet']);
  await driveRuns(client, opts('text', 30, 1), fillerText(50));
  for (let round = 0; round < 3; round++) {
    tool = false;
    const before = pids.map(cpuMsOf);
    const drive = await driveRuns(client, opts('text', 200, 20), fillerText(50));
    const after = pids.map(cpuMsOf);
    const tokens = drive.samples.reduce((s, x) => s + x.tokensDelivered, 0);
    const per = (i: number) => Math.round(((after[i]! - before[i]!) / tokens) * 1000);
    tool = true;
    const t = await driveRuns(client, opts('tool', 200, 20), fillerText(50));
    const ttft = percentiles(t.samples.map((s) => s.ttftMs!));
    console.log(JSON.stringify({ cpuPer1000: { api: per(0), workers: per(1) + per(2), total: per(0) + per(1) + per(2) }, tool: { p50: ttft.p50, p95: ttft.p95, runsPerSec: +(200 / (t.wallMs / 1000)).toFixed(2) } }));
  }
} finally {
  await stack.stop();
  await llm.close();
}
