import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const composeFile = join(repoRoot, 'docker-compose.yml');
const dockerfile = readFileSync(join(repoRoot, 'infra/docker/Dockerfile'), 'utf8');
const npmScripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>;
/** What `npm run <script>` runs: start-built.mjs's entry for the script's role (`start:web` → `web/build/server.js`). */
function compiledEntryOf(script: string): string {
  const role = /^exec node infra\/scripts\/start-built\.mjs ([\w-]+)$/.exec(npmScripts[script] ?? '')?.[1];
  expect(role, `npm run ${script} runs start-built.mjs`).toBeDefined();
  const startBuilt = readFileSync(join(repoRoot, 'infra/scripts/start-built.mjs'), 'utf8');
  const entry = new RegExp(`^\\s*'?${role}'?: '([^']+)',$`, 'm').exec(startBuilt)?.[1];
  expect(entry, `start-built.mjs entry for ${role}`).toBeDefined();
  return entry!;
}

type Service = {
  build?: { target?: string; dockerfile?: string };
  restart?: string;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[] };
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
};
type Compose = { services: Record<string, Service>; volumes?: Record<string, unknown> };

/** `docker compose config` when the compose plugin is installed (no daemon needed), else null. */
function dockerComposeConfig(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } | null {
  const probe = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return null;
  return spawnSync('docker', ['compose', '-f', composeFile, 'config', '--format', 'json'], { encoding: 'utf8', env: { ...process.env, ...env } });
}

/** The compose file as docker would see it: docker's own rendering when available, else the YAML with merge keys resolved. */
function loadCompose(): { compose: Compose; validatedBy: string } {
  const rendered = dockerComposeConfig({ APP_SECRET: 'x'.repeat(32), ADMIN_PASSWORD: 'compose-password' });
  if (rendered) {
    expect(rendered.status, rendered.stderr).toBe(0);
    return { compose: JSON.parse(rendered.stdout) as Compose, validatedBy: 'docker compose config' };
  }
  return { compose: parse(readFileSync(composeFile, 'utf8'), { merge: true }) as Compose, validatedBy: 'yaml' };
}

const durationSeconds = (value: string) => {
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(value);
  if (!match) throw new Error(`unexpected duration ${value}`);
  return Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0);
};

const { compose, validatedBy } = loadCompose();

describe('docker-compose.yml', () => {
  it(`runs every process with a restart policy and a health check (validated by ${validatedBy})`, () => {
    for (const name of ['postgres', 'redis', 'api', 'worker', 'web']) {
      const service = compose.services[name];
      expect(service, name).toBeDefined();
      expect(service!.restart, `${name} restart`).toMatch(/^(always|unless-stopped|on-failure)/);
      expect(service!.healthcheck?.test?.length, `${name} healthcheck`).toBeGreaterThan(0);
    }
    expect(compose.services.api!.healthcheck!.test!.join(' ')).toContain('/api/ready');
    expect(compose.services.worker!.healthcheck!.test).toEqual(['CMD', 'node', 'worker/dist/health.js']);
    expect(compose.services.worker!.depends_on?.api?.condition).toBe('service_healthy');
  });

  it('gives a stopping worker longer than its shutdown deadline', () => {
    const worker = compose.services.worker!;
    const deadlineMs = Number(worker.environment?.WORKER_SHUTDOWN_DEADLINE_MS);
    expect(deadlineMs).toBeGreaterThanOrEqual(30_000);
    // docker compose config renders durations as e.g. "40s"; the YAML says the same.
    expect(durationSeconds(String(worker.stop_grace_period)) * 1000).toBeGreaterThan(deadlineMs);
  });

  it('keeps Redis data (AOF, a volume) and never evicts keys', () => {
    const redis = compose.services.redis!;
    const command = redis.command!.join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(JSON.stringify(redis.volumes)).toContain('/data');
    expect(Object.keys(compose.volumes ?? {})).toEqual(expect.arrayContaining(['postgres-data', 'redis-data']));
  });

  it('passes PUBLIC_ORIGIN to the API, the workers and the web server (Secure cookies, HSTS, the accepted Origin)', () => {
    for (const name of ['api', 'worker', 'web']) {
      expect(compose.services[name]!.environment, name).toHaveProperty('PUBLIC_ORIGIN');
    }
  });

  it('refuses to render without APP_SECRET when docker can check it', () => {
    const rendered = dockerComposeConfig({ APP_SECRET: '', ADMIN_PASSWORD: 'compose-password' });
    if (rendered) {
      expect(rendered.status).not.toBe(0);
      expect(rendered.stderr).toContain('APP_SECRET');
    } else {
      expect(readFileSync(composeFile, 'utf8')).toMatch(/APP_SECRET: \$\{APP_SECRET:\?/);
    }
  });
});

describe('infra/docker/Dockerfile', () => {
  const stages = dockerfile.split(/^FROM /m).slice(1).map((block) => ({ header: block.split('\n')[0]!, body: block }));
  const stage = (name: string) => stages.find((candidate) => new RegExp(` AS ${name}$`).test(candidate.header))!;

  it('builds in one stage and runs compiled output as a non-root user with production dependencies only', () => {
    expect(stage('build').body).toContain('npm run build');
    expect(stage('prod-deps').body).toContain('npm ci --omit=dev');
    expect(stage('runtime').body).toMatch(/^USER node$/m);
    expect(stage('runtime').body).toContain('COPY --from=prod-deps /app/node_modules');
    // Each image runs what `npm run start:<role>` runs (the web server with its security headers, not adapter-node's bare index.js).
    for (const role of ['api', 'worker', 'web'] as const) {
      const entry = compiledEntryOf(`start:${role}`);
      const body = stage(role).header.startsWith('runtime') ? stage(role).body : '';
      expect(body, `${role} builds on the runtime stage`).not.toBe('');
      expect(body).toContain(`CMD ["node", "${entry}"]`);
      expect(body).toContain('HEALTHCHECK');
      expect(body).not.toMatch(/tsx|npm run/);
    }
  });

  it('carries what npm run migrate, create-admin and worker:health need', () => {
    const runtime = stage('runtime').body;
    expect(runtime).toContain('COPY --from=prod-deps /app/package.json ./');
    expect(runtime).toMatch(/COPY --from=build \/app\/infra\/scripts\/start-built\.mjs \/app\/infra\/scripts\/env-file\.mjs infra\/scripts\//);
    for (const script of ['migrate', 'create-admin']) {
      const entry = compiledEntryOf(script);
      expect(entry, script).toMatch(/^infra\/dist\//);
    }
    expect(runtime).toContain('COPY --from=build /app/infra/dist infra/dist');
    expect(compiledEntryOf('worker:health')).toBe('worker/dist/health.js');
  });

  it('is the build that docker-compose uses for every app service', () => {
    for (const role of ['api', 'worker', 'web']) {
      expect(compose.services[role]!.build?.target).toBe(role);
    }
  });
});
