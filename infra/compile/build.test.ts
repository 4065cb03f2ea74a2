import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { hashInputs } from './hash-inputs';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const build = () => spawnSync(process.execPath, ['--import', 'tsx', 'infra/compile/build.ts'], { cwd: repoRoot, encoding: 'utf8', timeout: 280_000 });

describe('npm run build (what npm start runs first)', () => {
  it('rebuilds nothing when no source changed since the last build', () => {
    const first = build();
    expect(first.status, first.stderr).toBe(0);
    const outputs = ['api/dist/index.js', 'worker/dist/index.js', 'infra/dist/start.js', 'web/build/server.js', 'web/build/index.js'];
    const before = outputs.map((path) => statSync(join(repoRoot, path)).mtimeMs);

    const second = build();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toContain('server: up to date');
    expect(second.stdout).toContain('web: up to date');
    expect(outputs.map((path) => statSync(join(repoRoot, path)).mtimeMs)).toEqual(before);
  }, 300_000);

  it('carries drizzle-orm inside the server bundles and their embedded-database module: none of its files load from node_modules', () => {
    const built = build();
    expect(built.status, built.stderr).toBe(0);
    for (const bundle of ['api/dist/index.js', 'worker/dist/index.js', 'infra/dist/start.js', 'infra/dist/migrate.js', 'infra/dist/pglite-database.js']) {
      const source = readFileSync(join(repoRoot, bundle), 'utf8');
      expect(source, bundle).not.toMatch(/(?:from\s*|import\()"drizzle-orm/);
      if (bundle.endsWith('pglite-database.js')) {
        expect(source).toMatch(/from\s*"@electric-sql\/pglite"/);
        continue;
      }
      // PGlite is loaded by the embedded-database module alone, beside the bundle.
      expect(source, bundle).not.toMatch(/"@electric-sql\/pglite"/);
      // The inlined copy is there and initialised on load, not deferred behind a dynamic import.
      expect(source, bundle).toMatch(/^function sql\(strings, \.\.\.params\)/m);
      expect(source, bundle).not.toMatch(/^var init_sql = __esm\(/m);
    }
  }, 300_000);

  it("runs a program on the compiled worker's code sandbox thread: its side entry sits beside the bundle and loads QuickJS from node_modules", async () => {
    const built = build();
    expect(built.status, built.stderr).toBe(0);
    // The worker's main bundle leaves QuickJS to the thread.
    expect(readFileSync(join(repoRoot, 'worker/dist/index.js'), 'utf8')).not.toContain('quickjs-emscripten');
    const thread = new Worker(join(repoRoot, 'worker/dist/code-thread.js'), { execArgv: [] });
    try {
      const reply = await new Promise((resolve, reject) => {
        thread.once('message', resolve);
        thread.once('error', reject);
        thread.postMessage({ id: 1, input: { code: 'console.log("compiled"); [1, 2, 3].map((n) => n * 2)', timeoutMs: 2_000, memoryLimitMb: 32, maxOutputChars: 1_000 } });
      });
      expect(reply).toMatchObject({ id: 1, value: { ok: true, value: { kind: 'json', text: '[2,4,6]' }, logs: 'compiled\n' } });
    } finally {
      await thread.terminate();
    }
  }, 300_000);

  it('sees a changed, added or renamed source file, and ignores tests, dependencies and outputs', () => {
    const root = mkdtempSync(join(tmpdir(), 'agentq-build-inputs-'));
    try {
      mkdirSync(join(root, 'pkg/src/deep'), { recursive: true });
      writeFileSync(join(root, 'pkg/src/deep/a.ts'), 'export const a = 1;\n');
      const hash = () => hashInputs(root, ['pkg/src', 'package-lock.json']);
      const initial = hash();
      expect(hash()).toBe(initial);

      // Not inputs: tests, installed dependencies, build output.
      writeFileSync(join(root, 'pkg/src/deep/a.test.ts'), 'test\n');
      mkdirSync(join(root, 'pkg/src/node_modules/x'), { recursive: true });
      writeFileSync(join(root, 'pkg/src/node_modules/x/index.js'), 'x\n');
      mkdirSync(join(root, 'pkg/src/dist'));
      writeFileSync(join(root, 'pkg/src/dist/a.js'), 'x\n');
      expect(hash()).toBe(initial);

      writeFileSync(join(root, 'pkg/src/deep/a.ts'), 'export const a = 2;\n');
      const changed = hash();
      expect(changed).not.toBe(initial);
      renameSync(join(root, 'pkg/src/deep/a.ts'), join(root, 'pkg/src/deep/b.ts'));
      const renamed = hash();
      expect(renamed).not.toBe(changed);
      writeFileSync(join(root, 'package-lock.json'), '{}\n');
      expect(hash()).not.toBe(renamed);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
