/**
 * Cold start and memory of the API and worker processes, from TypeScript through tsx vs compiled:
 * `node --import tsx infra/load/cold-start.ts [--samples 3]` (after `npm run build`).
 * Start → healthy `/api/ready` (API) or → "worker started" (worker), then RSS once idle.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { createDb } from '@agentq/shared/db';
import { freePort } from '../scripts/redis-child';
import { percentiles } from './stats';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const { values } = parseArgs({ options: { samples: { type: 'string', default: '3' } } });

const rssMb = (pid: number) => Math.round(Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024);

async function once(entry: string[], env: NodeJS.ProcessEnv, ready: (output: string, port: number) => Promise<boolean>) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, entry, { cwd: repoRoot, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  while (!(await ready(output, port).catch(() => false))) {
    if (child.exitCode !== null) throw new Error(output);
    await new Promise((done) => setTimeout(done, 20));
  }
  const readyMs = performance.now() - started;
  await new Promise((done) => setTimeout(done, 3000));
  const rss = rssMb(child.pid!);
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
  return { readyMs, rss };
}

const name = `agentq_cold_${randomBytes(3).toString('hex')}`;
const server = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
await server.unsafe(`create database "${name}"`);
const databaseUrl = Object.assign(new URL(SERVER_URL), { pathname: `/${name}` }).toString();
const database = await createDb({ url: databaseUrl, poolSize: 1 });
await database.migrate();
await database.close();
const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_PREFIX: `cold-${randomBytes(3).toString('hex')}`, APP_SECRET: 'cold-start-secret-0123456789', LOG_LEVEL: 'info', NODE_ENV: 'production' };
const apiReady = async (_: string, port: number) => (await fetch(`http://127.0.0.1:${port}/api/ready`)).ok;
const workerReady = async (output: string) => output.includes('worker started');
const variants = [
  ['api, tsx', ['--import', 'tsx', 'api/src/index.ts'], apiReady],
  ['api, compiled', ['api/dist/index.js'], apiReady],
  ['worker, tsx', ['--import', 'tsx', 'worker/src/index.ts'], workerReady],
  ['worker, compiled', ['worker/dist/index.js'], workerReady],
] as const;
try {
  for (const [label, entry, ready] of variants) {
    const samples = [];
    for (let index = 0; index < Number(values.samples); index++) samples.push(await once([...entry], env, ready));
    const start = percentiles(samples.map((sample) => sample.readyMs));
    console.log(`${label.padEnd(18)} ready p50 ${Math.round(start.p50)} ms (min ${Math.round(Math.min(...samples.map((sample) => sample.readyMs)))})  RSS ${samples.map((sample) => sample.rss).join('/')} MB`);
  }
} finally {
  await server.unsafe(`drop database if exists "${name}" with (force)`);
  await server.end();
}
