import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from './redis-child';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('npm start with no configuration', () => {
  it('builds what changed, runs the compiled server, uses PGlite and a private redis-server, creates the first admin, serves web and API on one port, and stops cleanly', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentq-start-'));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    for (const key of ['DATABASE_URL', 'REDIS_URL', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'APP_SECRET']) delete env[key];
    // `npm start` itself: builds what changed (incremental), then runs the compiled infra/dist/start.js.
    const child = spawn('npm', ['start'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    try {
      await expect.poll(() => output, { timeout: 240_000, interval: 200 }).toContain('agentq is running at');
      expect(output).toMatch(/server: (up to date|built in)/);
      expect(output).toMatch(/web: (up to date|built in)/);
      expect(output).toContain('database: pglite');
      const processes = spawnSync('ps', ['-o', 'args=', '--ppid', String(child.pid)], { encoding: 'utf8' }).stdout;
      expect(processes).toMatch(/^node infra\/dist\/start\.js$/m);
      expect(processes).not.toMatch(/tsx/);
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/api/health`)).status).toBe(200);
      expect((await fetch(`${base}/api/ready`)).status).toBe(200);
      const loginPage = await fetch(`${base}/login`);
      expect(loginPage.status).toBe(200);
      expect(loginPage.headers.get('content-type')).toMatch(/html/);

      const credentials = readFileSync(join(dataDir, 'initial-admin.txt'), 'utf8');
      const email = /email: (.+)/.exec(credentials)![1]!;
      const password = /password: (.+)/.exec(credentials)![1]!;
      expect(output).toContain(password);
      const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
      expect(login.status).toBe(200);
      expect((await login.json()).user.role).toBe('admin');
      // The scripted demo model answers a chat without any API key.
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const headers = { cookie, 'content-type': 'application/json' };
      const session = await (await fetch(`${base}/api/sessions`, { method: 'POST', headers, body: '{}' })).json();
      const run = await (await fetch(`${base}/api/sessions/${session.id}/runs`, { method: 'POST', headers, body: JSON.stringify({ content: 'hello demo' }) })).json();
      const stream = await (await fetch(`${base}${run.eventsUrl}`, { headers })).text();
      expect(stream).toContain('"type":"text-delta"');
      expect(stream).toContain('data: [DONE]');
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
