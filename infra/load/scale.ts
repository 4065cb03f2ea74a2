/**
 * `npm run loadtest -- scale`: runs/s and time to first token with 1, 2 and 4 worker processes at a
 * fixed model latency, then with workers on simulated hosts (their own network namespaces, joined
 * by veth pairs to the Redis/PostgreSQL side, round-trip time added by a delaying forwarder).
 * Compiled processes (`npm run build` first). CPU use per process and for the machine names the bound.
 *
 *   npm run loadtest -- scale [--workers 1,2,4] [--rtt 0,1,5] [--ns-workers 2] [--runs 150]
 *     [--concurrency 64] [--ttft 200] [--interval 10] [--out docs/scaling/scale.json]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { cpus } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { freePort } from '../scripts/redis-child';
import { ApiClient } from '../testing/api-client';
import { dropRedisPrefix } from '../testing/redis-prefix';
import { startDelayingForwarder } from './delaying-forwarder';
import { percentiles, round } from './stats';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = { host: '127.0.0.1', port: 6379 };
const PG = { host: '127.0.0.1', port: 5432 };
const TICKS = 100; // USER_HZ

type Config = { label: string; workers: number; netns: boolean; rttMs: number };
type Proc = { label: string; child: ChildProcess; output: () => string };

const list = (value: string) => value.split(',').map((item) => Number(item.trim())).filter((item) => Number.isFinite(item));

function spawnProc(label: string, command: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(command[0]!, command.slice(1), { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const append = (chunk: Buffer) => {
    output = (output + chunk).slice(-20_000);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  return { label, child, output: () => output };
}

/** utime + stime of a process and its children that were waited for, in seconds. */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS;
  } catch {
    return 0;
  }
}

/** The node process under `ip netns exec` (which execs, so it is the same pid). */
const machineBusy = () => {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  const idle = values[3]! + values[4]!;
  const total = values.reduce((sum, value) => sum + value, 0);
  return { idle, total };
};

function ip(...args: string[]) {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr}`);
}

/** Namespace `aqscale<i>` with veth aqs<i>r (root, 10.200.<i>.1/30) ↔ aqs<i>n (namespace, 10.200.<i>.2/30). */
function createNamespace(index: number) {
  const ns = `aqscale${index}`;
  const root = `aqs${index}r`;
  const inner = `aqs${index}n`;
  destroyNamespace(index);
  ip('netns', 'add', ns);
  ip('link', 'add', root, 'type', 'veth', 'peer', 'name', inner);
  ip('link', 'set', inner, 'netns', ns);
  ip('addr', 'add', `10.200.${index}.1/30`, 'dev', root);
  ip('link', 'set', root, 'up');
  ip('netns', 'exec', ns, 'ip', 'addr', 'add', `10.200.${index}.2/30`, 'dev', inner);
  ip('netns', 'exec', ns, 'ip', 'link', 'set', inner, 'up');
  ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  return { ns, rootAddress: `10.200.${index}.1` };
}

function destroyNamespace(index: number) {
  spawnSync('ip', ['link', 'del', `aqs${index}r`], { stdio: 'ignore' });
  spawnSync('ip', ['netns', 'del', `aqscale${index}`], { stdio: 'ignore' });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string, procs: Proc[]) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    const dead = procs.find((proc) => proc.child.exitCode !== null);
    if (dead) throw new Error(`${dead.label} exited:\n${dead.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${procs.map((proc) => `${proc.label}: ${proc.output().slice(-2000)}`).join('\n')}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

/** One run: POST, then the SSE stream to its end; TTFT is POST → first text token. */
async function driveOne(client: ApiClient, sessionId: string) {
  const started = performance.now();
  const run = await client.post(`/api/sessions/${sessionId}/runs`, { content: 'hello from the scale test' });
  if (run.status !== 202) return { ok: false as const };
  let ttftMs: number | undefined;
  let ok = false;
  const response = await fetch(`${client.baseUrl}/api/runs/${run.body.runId}/events`, { headers: { cookie: client.cookieHeader, accept: 'text/event-stream' } });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    if (ttftMs === undefined && buffer.includes('"text-delta"')) ttftMs = performance.now() - started;
    if (buffer.includes('"status":"succeeded"')) ok = true;
    if (buffer.length > 4096) buffer = buffer.slice(-512);
  }
  return { ok, ttftMs, e2eMs: performance.now() - started };
}

async function measure(config: Config, options: { runs: number; concurrency: number; ttft: number; interval: number; modelPort: number }) {
  const procs: Proc[] = [];
  const forwarders: (Server & { flights: { requests: number } })[] = [];
  const namespaces: number[] = [];
  const databaseName = `agentq_scale_${randomBytes(4).toString('hex')}`;
  const prefix = `aqscale-${randomBytes(3).toString('hex')}`;
  const server = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  await server.unsafe(`create database "${databaseName}"`);
  const databaseUrl = (host: string, port: number) => Object.assign(new URL(SERVER_URL), { hostname: host, port: String(port), pathname: `/${databaseName}` }).toString();
  const admin = { email: 'scale@example.com', password: 'scale-password-1' };
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    QUEUE_PREFIX: prefix,
    APP_SECRET: 'scale-secret-0123456789abcdef',
    LOG_LEVEL: 'warn',
    WORKER_CONCURRENCY: '50',
    // The pool of the measurements in docs/scaling.md (before the default became 10).
    DATABASE_POOL_SIZE: '20',
    // Up to four workers and an API at 20 each would take every connection of max_connections 100 at once.
    DATABASE_POOL_WARM: '0',
  };
  const node = process.execPath;
  const model = (wrap: string[]) => [...wrap, node, 'infra/dist/demo-model.js', '--port', String(options.modelPort), '--ttft', String(options.ttft), '--interval', String(options.interval)];
  try {
    procs.push(spawnProc('model', model([]), base));
    const apiPort = await freePort();
    const api = spawnProc('api', [node, 'api/dist/index.js'], {
      ...base,
      DATABASE_URL: databaseUrl(PG.host, PG.port),
      REDIS_URL: `redis://${REDIS.host}:${REDIS.port}`,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      LLM_BASE_URL: `http://127.0.0.1:${options.modelPort}/v1`,
      LLM_MODEL: 'agentq-demo',
      LLM_API_KEY: 'unused',
    });
    procs.push(api);
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    await waitFor(async () => (await fetch(`${apiUrl}/api/ready`)).ok, 120_000, 'the API', procs);
    const workers: Proc[] = [];
    for (let index = 0; index < config.workers; index++) {
      if (!config.netns) {
        workers.push(spawnProc(`worker ${index}`, [node, 'worker/dist/index.js'], { ...base, DATABASE_URL: databaseUrl(PG.host, PG.port), REDIS_URL: `redis://${REDIS.host}:${REDIS.port}` }));
        continue;
      }
      const nsIndex = index + 1;
      const { ns, rootAddress } = createNamespace(nsIndex);
      namespaces.push(nsIndex);
      // Half the round trip each way, on the Redis and PostgreSQL connections of this "host".
      forwarders.push(await startDelayingForwarder({ host: rootAddress, port: 6379 }, REDIS, config.rttMs / 2));
      forwarders.push(await startDelayingForwarder({ host: rootAddress, port: 5432 }, PG, config.rttMs / 2));
      // The model is remote anyway: each simulated host reaches its own copy at a fixed latency.
      procs.push(spawnProc(`model ${ns}`, model(['ip', 'netns', 'exec', ns]), base));
      workers.push(spawnProc(`worker ${ns}`, ['ip', 'netns', 'exec', ns, node, 'worker/dist/index.js'], { ...base, DATABASE_URL: databaseUrl(rootAddress, 5432), REDIS_URL: `redis://${rootAddress}:6379` }));
    }
    procs.push(...workers);
    await waitFor(async () => (await (await fetch(`${apiUrl}/api/ready`)).json()).workers.count === config.workers, 120_000, 'workers', procs);

    const client = await ApiClient.login(apiUrl, admin);
    const sessions = await Promise.all(Array.from({ length: options.concurrency }, async () => (await client.post('/api/sessions', {})).body.id as string));
    // Warm-up (connections, JIT) outside the measurement.
    await Promise.all(sessions.slice(0, Math.min(8, sessions.length)).map((sessionId) => driveOne(client, sessionId)));

    const transactions = async () => {
      const [row] = await server`select xact_commit + xact_rollback as n from pg_stat_database where datname = ${databaseName}`;
      return Number(row?.n ?? 0);
    };
    await new Promise((done) => setTimeout(done, 1500)); // backends flush their statistics about once a second
    const xactBefore = await transactions();
    const flightsBefore = forwarders.map((forwarder) => forwarder.flights.requests);
    const cpuBefore = procs.map((proc) => cpuSeconds(proc.child.pid));
    const machineBefore = machineBusy();
    const samples: Awaited<ReturnType<typeof driveOne>>[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      sessions.map(async (sessionId) => {
        while (next < options.runs) {
          next++;
          samples.push(await driveOne(client, sessionId).catch(() => ({ ok: false as const })));
        }
      }),
    );
    const wallS = (performance.now() - started) / 1000;
    const machineAfter = machineBusy();
    const cpu = procs.map((proc, index) => ({ label: proc.label, cores: round((cpuSeconds(proc.child.pid) - cpuBefore[index]!) / wallS, 2) }));
    const ok = samples.filter((sample) => sample.ok);
    const ttft = percentiles(ok.flatMap((sample) => (sample.ttftMs === undefined ? [] : [sample.ttftMs])));
    const e2e = percentiles(ok.flatMap((sample) => (sample.e2eMs === undefined ? [] : [sample.e2eMs])));
    await new Promise((done) => setTimeout(done, 1500));
    const xactPerRun = round(((await transactions()) - xactBefore) / Math.max(1, samples.length), 1);
    // Forwarders come in pairs per namespace: Redis, then PostgreSQL.
    const flightsPerRun = (offset: number) =>
      forwarders.length === 0 ? undefined : round(forwarders.filter((_, index) => index % 2 === offset).reduce((sum, forwarder) => sum + forwarder.flights.requests - flightsBefore[forwarders.indexOf(forwarder)]!, 0) / Math.max(1, samples.length), 1);
    const busy = 1 - (machineAfter.idle - machineBefore.idle) / (machineAfter.total - machineBefore.total);
    return {
      ...config,
      runs: samples.length,
      ok: ok.length,
      runsPerSec: round(ok.length / wallS, 1),
      ttftMs: ttft,
      e2eMs: e2e,
      cpuCores: {
        api: cpu.find((entry) => entry.label === 'api')!.cores,
        workers: round(cpu.filter((entry) => entry.label.startsWith('worker')).reduce((sum, entry) => sum + entry.cores, 0), 2),
        models: round(cpu.filter((entry) => entry.label.startsWith('model')).reduce((sum, entry) => sum + entry.cores, 0), 2),
        machineBusyPercent: round(busy * 100, 0),
      },
      perRun: { postgresTransactions: xactPerRun, workerRedisRoundTrips: flightsPerRun(0), workerPostgresRoundTrips: flightsPerRun(1) },
      rssMb: Object.fromEntries(procs.map((proc) => [proc.label, rssMb(proc.child.pid)])),
    };
  } finally {
    await Promise.all(procs.map((proc) => stop(proc.child)));
    for (const forwarder of forwarders) forwarder.close();
    for (const index of namespaces) destroyNamespace(index);
    await server.unsafe(`drop database if exists "${databaseName}" with (force)`).catch(() => {});
    await server.end();
    await dropRedisPrefix(`redis://${REDIS.host}:${REDIS.port}`, prefix);
  }
}

function rssMb(pid: number | undefined): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'))!;
    return Math.round(Number(line.split(/\s+/)[1]) / 1024);
  } catch {
    return 0;
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

export async function runScale(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      workers: { type: 'string', default: '1,2,4' },
      rtt: { type: 'string', default: '0,1,5' },
      'ns-workers': { type: 'string', default: '2' },
      runs: { type: 'string', default: '150' },
      concurrency: { type: 'string', default: '64' },
      ttft: { type: 'string', default: '200' },
      interval: { type: 'string', default: '10' },
      out: { type: 'string' },
    },
    strict: true,
  });
  if (!existsSync(resolve(repoRoot, 'worker/dist/index.js'))) throw new Error('run `npm run build` first: the scale test measures the compiled processes');
  const options = { runs: Number(values.runs), concurrency: Number(values.concurrency), ttft: Number(values.ttft), interval: Number(values.interval), modelPort: await freePort() };
  const configs: Config[] = [
    ...list(values.workers).map((workers) => ({ label: `${workers} worker(s), loopback`, workers, netns: false, rttMs: 0 })),
    ...(values.rtt === '' ? [] : list(values.rtt).map((rttMs) => ({ label: `${values['ns-workers']} workers in netns, +${rttMs} ms RTT`, workers: Number(values['ns-workers']), netns: true, rttMs }))),
  ];
  const results = [];
  for (const config of configs) {
    console.error(`measuring: ${config.label} (${options.runs} runs, ${options.concurrency} at once)...`);
    const result = await measure(config, options);
    results.push(result);
    console.log(
      `${config.label.padEnd(36)} per run: pg xacts ${result.perRun.postgresTransactions}, worker→redis ${result.perRun.workerRedisRoundTrips ?? '-'}, worker→pg ${result.perRun.workerPostgresRoundTrips ?? '-'}\n${' '.repeat(36)} ${String(result.runsPerSec).padStart(6)} runs/s  TTFT p50 ${result.ttftMs.p50} p95 ${result.ttftMs.p95} ms  e2e p50 ${result.e2eMs.p50} ms  ok ${result.ok}/${result.runs}  CPU cores: api ${result.cpuCores.api} workers ${result.cpuCores.workers} models ${result.cpuCores.models} machine ${result.cpuCores.machineBusyPercent}%`,
    );
  }
  const report = { at: new Date().toISOString(), machine: { cpus: cpus().length, loadavg: readFileSync('/proc/loadavg', 'utf8').trim() }, options, results };
  if (values.out) {
    mkdirSync(dirname(resolve(values.out)), { recursive: true });
    writeFileSync(resolve(values.out), `${JSON.stringify(report, null, 2)}\n`);
    console.error(`wrote ${values.out}`);
  }
  return report;
}
