import { readFileSync } from 'node:fs';
import { ApiClient } from '../testing/api-client';
import { startProcessStack } from '../testing/process-stack';
import { requestJson } from '../load/http';
import { toolExecutionBaseline } from '../load/baselines';

function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
function machine() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  const idle = f[3]! + f[4]!;
  const total = f.reduce((a, b) => a + b, 0);
  return { idle, total };
}
import { readdirSync } from 'node:fs';
function groups(workerPids: number[]) {
  const out: Record<string, number> = { postgres: 0, redis: 0, children: 0 };
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
      const ppid = Number(fields[1]);
      if (comm.startsWith('postgres')) out.postgres += ms;
      else if (comm.startsWith('redis-server')) out.redis += ms;
      else if (workerPids.includes(ppid)) out.children += ms;
    } catch {}
  }
  return out;
}
const self = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

const stack = await startProcessStack({ workers: 2, compiled: true, env: { LOG_LEVEL: 'info', DATABASE_POOL_WARM: '1' }, workerEnv: { WORKER_CONCURRENCY: '50' } });
const pids = [stack.api.child.pid!, ...stack.workers.map((w) => w.child.pid!)];
try {
  const client = await ApiClient.login(stack.apiUrl, stack.admin);
  const tool = await client.post('/api/agent-tools', { name: 'Bench calc', slug: 'calc', type: 'calculator' });
  const n = Number(process.argv[2] ?? 400);
  const mode = process.argv[3] ?? 'http';
  for (let round = 0; round < 3; round++) {
    const g0 = groups(pids.slice(1)); const before = pids.map(cpuMsOf); const m0 = machine(); const s0 = self();
    const t0 = performance.now();
    let result;
    if (mode === 'fetch') result = await toolExecutionBaseline(client, tool.body.id, n, 20);
    else {
      let next = 0; let errors = 0;
      const lane = async () => { while (next < n) { next++; const r = await requestJson(`${stack.apiUrl}/api/agent-tools/${tool.body.id}/execute`, { method: 'POST', cookie: client.cookieHeader, body: { input: { expression: '6 * 7' } } }); if (r.status !== 200) errors++; } };
      await Promise.all(Array.from({ length: 20 }, lane));
      result = { perSec: n / ((performance.now() - t0) / 1000), errors };
    }
    const ms = performance.now() - t0;
    const after = pids.map(cpuMsOf); const g1 = groups(pids.slice(1)); const m1 = machine();
    const busy = 1 - (m1.idle - m0.idle) / (m1.total - m0.total);
    console.log(JSON.stringify({ mode, perSec: Math.round(result.perSec), errors: result.errors, wallMs: Math.round(ms), cpuPerExecMs: { api: +((after[0]! - before[0]!) / n).toFixed(2), w1: +((after[1]! - before[1]!) / n).toFixed(2), w2: +((after[2]! - before[2]!) / n).toFixed(2), harness: +((self() - s0) / n).toFixed(2), pg: +((g1.postgres - g0.postgres) / n).toFixed(2), redis: +((g1.redis - g0.redis) / n).toFixed(2), children: +((g1.children - g0.children) / n).toFixed(2) }, machineBusy: +(busy * 100).toFixed(0), machineCpuPerExecMs: +((busy * 2 * ms) / n).toFixed(2) }));
  }
} finally {
  await stack.stop();
}
