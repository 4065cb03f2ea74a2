import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunEvent } from '@agentq/shared/events';
import { envSchema } from '@agentq/shared/env';
import { randomPrefix } from '@agentq/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../testing/api-client';
import { freePort, startRedisChild } from './redis-child';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** Product source files under `path` (tests and test helpers left out). */
function sourceFiles(path: string): string[] {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
    const full = join(path, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'testing' ? [] : sourceFiles(full);
    return /\.(ts|mjs|js|svelte)$/.test(entry.name) && !/test|testing/.test(relative(repoRoot, full).split('/').at(-1)!) ? [full] : [];
  });
}

/** The environment of a shell that has none of agentq's variables set (the test runner's are dropped). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keys = new Set(Object.keys(envSchema.shape));
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !keys.has(key) && !key.startsWith('TEST_')));
  return { ...base, ...extra };
}

/** Words of a shell command line, quotes kept together (`"$(openssl rand -base64 32)"` is one word). */
function shellWords(line: string): string[] {
  return line.match(/(?:"[^"]*"|'[^']*'|\$\([^)]*\)|[^\s"'])+/g) ?? [];
}

/**
 * What a command of the README's production block does, in terms the quickstart script must match:
 * the npm command (`ci`, `run start:api`, …) with its flags and the variables set on its line, or
 * the variables an `export` sets, or another command (kept verbatim, e.g. `openssl rand -base64 32`).
 */
type Step = { npm?: string; flags: string[]; inlineVars: string[]; exported: string[]; other?: string };
function stepsOf(block: string): Step[] {
  const steps: Step[] = [];
  for (const rawLine of block.split('\n')) {
    const line = rawLine.replace(/\s+#.*$/, '').trim();
    if (!line || line.startsWith('#')) continue;
    for (const command of line.split(/\s*(?:&&|\|\||\||&)\s*/).filter(Boolean)) {
      const words = shellWords(command);
      const step: Step = { flags: [], inlineVars: [], exported: [] };
      if (words[0] === 'export') {
        step.exported = words.slice(1).map((word) => word.split('=')[0]!);
        for (const word of words) for (const match of word.matchAll(/\$\(([^)]*)\)/g)) steps.push({ flags: [], inlineVars: [], exported: [], other: match[1]! });
      } else {
        while (words[0] && /^[A-Z_]+=/.test(words[0])) step.inlineVars.push(words.shift()!.split('=')[0]!);
        if (words[0] === 'npm') {
          const script = words[1] === 'run' ? `run ${words[2]}` : words[1]!;
          step.npm = script;
          step.flags = words.filter((word) => word.startsWith('--') && word !== '--').map((word) => word.split('=')[0]!);
        } else {
          step.other = words.join(' ');
        }
      }
      steps.push(step);
    }
  }
  return steps;
}

describe('README production section', () => {
  it('points at the quickstart script, and every npm script it names exists', () => {
    const section = readme.slice(readme.indexOf('## Production'));
    expect(section.length).toBeGreaterThan(100);
    expect(section).toContain('infra/scripts/production-quickstart.sh');
    const scripts = Object.keys(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>);
    const named = [...section.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThan(3);
    for (const name of named) expect(scripts, `README names npm run ${name}`).toContain(name);
  });

  it('shows the same commands the quickstart script runs', () => {
    const section = readme.slice(readme.indexOf('## Production'), readme.indexOf('\n## ', readme.indexOf('## Production') + 1));
    const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
    const script = readFileSync(join(repoRoot, 'infra/scripts/production-quickstart.sh'), 'utf8');
    const scriptSteps = stepsOf(script.split('\n').filter((line) => !line.trim().startsWith(':')).join('\n'));
    const readmeSteps = stepsOf(block);
    expect(readmeSteps.filter((step) => step.npm).length).toBeGreaterThanOrEqual(7);
    for (const step of readmeSteps) {
      if (step.npm) {
        // The same npm command, with at least the README's flags and variables.
        const match = scriptSteps.find((candidate) => candidate.npm === step.npm && step.flags.every((flag) => candidate.flags.includes(flag)) && step.inlineVars.every((name) => candidate.inlineVars.includes(name)));
        expect(match, `the script runs npm ${step.npm} ${step.flags.join(' ')} with ${step.inlineVars.join(', ') || 'no variables'} set`).toBeDefined();
      }
      for (const name of step.exported) expect(script, `the script exports ${name}`).toMatch(new RegExp(`export [^\\n]*\\b${name}\\b`));
      if (step.other) expect(script, `the script runs ${step.other}`).toContain(step.other);
    }
    // And the other way round: everything the script runs is in the README section.
    for (const step of scriptSteps) if (step.npm) expect(section, `README shows npm ${step.npm}`).toContain(`npm ${step.npm}`);
  });

  it('.env.example lists every variable of the env schema, and every other variable the processes read', () => {
    const example = readFileSync(join(repoRoot, '.env.example'), 'utf8');
    const listed = new Set([...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]));
    const missing = Object.keys(envSchema.shape).filter((key) => !listed.has(key));
    expect(missing, 'add these to .env.example').toEqual([]);
    // Reads that bypass the schema (web server, .env loading): at least a commented line each.
    const sources = ['shared/src', 'api/src', 'worker/src', 'web/src', 'web/server.ts', 'infra/scripts'].flatMap((path) => sourceFiles(join(repoRoot, path)));
    const read = new Set(sources.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map((match) => match[1]!)));
    expect(read.size).toBeGreaterThan(3);
    expect([...read].filter((name) => !example.includes(`${name}=`)), 'mention these in .env.example').toEqual([]);
  });

  it('the production npm scripts run compiled output, not TypeScript', () => {
    const scripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>;
    for (const name of ['start:api', 'start:worker', 'start:web', 'migrate', 'create-admin', 'worker:health', 'demo-model']) {
      expect(scripts[name], name).toMatch(/^exec node infra\/scripts\/start-built\.mjs [\w-]+$/);
    }
    expect(scripts.start).toMatch(/infra\/compile\/build\.ts && exec node infra\/dist\/start\.js$/);
  });

  it('npm run start:api without configuration exits with one line per missing variable, no stack trace', () => {
    // The compiled API (incremental: a no-op when the sources did not change since the last build).
    const build = spawnSync(process.execPath, ['--import', 'tsx', 'infra/compile/build.ts', 'server'], { cwd: repoRoot, encoding: 'utf8', timeout: 240_000 });
    expect(build.status, build.stderr).toBe(0);
    const result = spawnSync('npm', ['run', '--silent', 'start:api'], { cwd: repoRoot, env: cleanEnv({ AGENTQ_ENV_FILE: '/nonexistent/.env' }), encoding: 'utf8', timeout: 60_000 });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines.some((line) => /^APP_SECRET is not set: generate one with `openssl rand -base64 32`/.test(line))).toBe(true);
    expect(lines.some((line) => line.startsWith('DATABASE_URL is not set'))).toBe(true);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(lines.length).toBeLessThanOrEqual(3);
  }, 300_000);

  it('npm run start:api on a database without an admin says how to create one', async () => {
    const databaseName = `agentq_noadmin_${randomBytes(4).toString('hex')}`;
    const server = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
    await server.unsafe(`create database "${databaseName}"`);
    const port = await freePort();
    const api = spawn('npm', ['run', '--silent', 'start:api'], {
      cwd: repoRoot,
      env: cleanEnv({
        AGENTQ_ENV_FILE: '/nonexistent/.env',
        DATABASE_URL: Object.assign(new URL(SERVER_URL), { pathname: `/${databaseName}` }).toString(),
        REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
        // A test run's prefix: its global teardown removes the keys this API leaves.
        QUEUE_PREFIX: randomPrefix('noadmin'),
        APP_SECRET: randomBytes(32).toString('base64'),
        PORT: String(port),
        HOST: '127.0.0.1',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    api.stdout.on('data', (chunk) => (output += chunk));
    api.stderr.on('data', (chunk) => (output += chunk));
    try {
      await expect.poll(() => output, { timeout: 60_000, interval: 200 }).toContain('api listening');
      expect(output).toContain('no admin account exists yet: create one with `npm run create-admin -- --email you@example.com --password-stdin`');
      expect((await fetch(`http://127.0.0.1:${port}/api/ready`)).status).toBe(200);
    } finally {
      const exited = new Promise((resolve) => api.once('exit', resolve));
      api.kill('SIGTERM');
      await exited;
      await server.unsafe(`drop database if exists "${databaseName}" with (force)`).catch(() => {});
      await server.end();
    }
  }, 90_000);

  describe('infra/scripts/production-quickstart.sh on its own database and redis-server', () => {
    const databaseName = `agentq_quickstart_${randomBytes(4).toString('hex')}`;
    const server = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
    const scratch = mkdtempSync(join(tmpdir(), 'agentq-quickstart-'));
    const admin = { email: 'ops@example.com', password: 'quickstart-password-1' };
    let redis: Awaited<ReturnType<typeof startRedisChild>>;
    let script: ReturnType<typeof spawn>;
    let output = '';
    let webUrl = '';

    beforeAll(async () => {
      await server.unsafe(`create database "${databaseName}"`);
      redis = await startRedisChild(scratch, { persistent: false });
      const [apiPort, webPort, modelPort] = [await freePort(), await freePort(), await freePort()];
      webUrl = `http://127.0.0.1:${webPort}`;
      const databaseUrl = Object.assign(new URL(SERVER_URL), { pathname: `/${databaseName}` }).toString();
      script = spawn('bash', ['infra/scripts/production-quickstart.sh'], {
        cwd: repoRoot,
        // Its own process group, so the test can stop the script and everything it started.
        detached: true,
        env: cleanEnv({
          DATABASE_URL: databaseUrl,
          REDIS_URL: redis.url,
          ADMIN_EMAIL: admin.email,
          ADMIN_PASSWORD: admin.password,
          APP_SECRET_FILE: join(scratch, 'app-secret'),
          AGENTQ_ENV_FILE: join(scratch, 'no.env'),
          API_PORT: String(apiPort),
          WEB_PORT: String(webPort),
          WEB_HOST: '127.0.0.1',
          DEMO_MODEL_PORT: String(modelPort),
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      script.stdout!.on('data', (chunk) => (output += chunk));
      script.stderr!.on('data', (chunk) => (output += chunk));
      const started = Date.now();
      while (!output.includes('agentq is up at')) {
        if (script.exitCode !== null) throw new Error(`quickstart exited with ${script.exitCode}:\n${output}`);
        if (Date.now() - started > 240_000) throw new Error(`quickstart not up within 240 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }, 300_000);

    afterAll(async () => {
      if (script?.pid && script.exitCode === null) {
        process.kill(-script.pid, 'SIGTERM');
        await new Promise((resolve) => setTimeout(resolve, 3000));
        try {
          process.kill(-script.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await redis?.stop();
      await server.unsafe(`drop database if exists "${databaseName}" with (force)`).catch(() => {});
      await server.end();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('generates a private APP_SECRET, migrates, creates the admin from stdin and serves compiled processes only', () => {
      expect(output).toContain('migrated postgres database');
      expect(output).toContain(`Created admin ${admin.email}`);
      expect(statSync(join(scratch, 'app-secret')).mode & 0o077).toBe(0);
      expect(readFileSync(join(scratch, 'app-secret'), 'utf8').trim().length).toBeGreaterThanOrEqual(40);
      const processes = spawnSync('ps', ['-o', 'args=', '-g', String(script.pid)], { encoding: 'utf8' }).stdout;
      for (const name of ['api', 'worker', 'web', 'demo-model']) expect(processes).toContain(`start-built.mjs ${name}`);
      expect(processes).not.toMatch(/tsx/);
      expect(output).not.toContain('no admin account exists');
    });

    it('answers a chat run through the web origin with the configured model, then stops everything on SIGTERM', async () => {
      const ready = await fetch(`${webUrl}/api/ready`);
      expect(ready.status).toBe(200);
      const client = await ApiClient.login(webUrl, admin);
      const session = await client.post('/api/sessions', {});
      expect(session.status).toBe(201);
      const run = await client.post(`/api/sessions/${session.body.id}/runs`, { content: 'hello from the README' });
      expect(run.status).toBe(202);
      const { events } = await client.readEvents(run.body.runId, { timeoutMs: 60_000 });
      const statuses = events.filter((event: RunEvent) => event.chunk.type === 'data-run-status').map((event) => (event.chunk as { data: { status: string } }).data.status);
      expect(statuses.at(-1)).toBe('succeeded');
      const text = events.flatMap((event) => (event.chunk.type === 'text-delta' ? [(event.chunk as { delta: string }).delta] : [])).join('');
      expect(text).toContain('Scripted demo model');

      const exited = new Promise<number | null>((resolve) => script.once('exit', (code) => resolve(code)));
      process.kill(script.pid!, 'SIGTERM');
      expect(await exited).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const left = spawnSync('ps', ['-o', 'pid=,args=', '-g', String(script.pid)], { encoding: 'utf8' }).stdout.trim();
      expect(left).toBe('');
      expect(output).toContain('worker stopped');
    }, 90_000);
  });
});
