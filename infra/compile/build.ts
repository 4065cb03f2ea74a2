/**
 * `npm run build`: bundles each server process (API, worker, all-in-one, admin scripts) into one
 * JavaScript file with esbuild and builds the web app with vite. Workspace code (`@agentq/*`) and
 * drizzle-orm are inlined; the other npm dependencies stay external and load from node_modules.
 * Every `.ts` file under the workspaces' sources reaches a bundle through imports, so new files
 * need no list here.
 *
 * A part whose inputs (file names and contents) hash to the stamp of its last build is skipped;
 * `--force` rebuilds anyway. `npm run build -- web` builds one part.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { hashInputs } from './hash-inputs';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const force = process.argv.includes('--force');
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));

/** Output directory → entry points (output name → source). */
const serverBundles: Record<string, Record<string, string>> = {
  'api/dist': { index: 'api/src/index.ts' },
  'worker/dist': { index: 'worker/src/index.ts', health: 'worker/src/health.ts' },
  'infra/dist': {
    start: 'infra/scripts/start.ts',
    'create-admin': 'infra/scripts/create-admin.ts',
    migrate: 'infra/scripts/migrate.ts',
    'demo-model': 'infra/fake-llm/main.ts',
  },
};
/** Files a bundle opens next to itself at run time (shared/src/side-entry.ts). */
const sideEntries = {
  'pglite-database': 'shared/src/db/pglite-database.ts',
  'math-process': 'shared/src/tools/calculator/math-process.ts',
  'html-to-markdown-thread': 'shared/src/tools/fetch/html-to-markdown-thread.ts',
  'pdf-text-thread': 'shared/src/services/chat-files/pdf-text-thread.ts',
  'code-thread': 'shared/src/tools/code/code-thread.ts',
};

const serverInputs = ['shared/src', 'shared/drizzle', 'api/src', 'worker/src', 'infra/scripts', 'infra/fake-llm', 'infra/compile', 'package-lock.json'];
const webInputs = ['web/src', 'web/static', 'web/server.ts', 'web/vite.config.ts', 'web/package.json', 'shared/src', 'package-lock.json'];

/**
 * Inlined although they are npm packages. drizzle-orm: Node 24 reads a file's package scope for
 * every ES module it loads, and the read parses that package.json's `exports`; drizzle-orm's is
 * 178 KB, so loading its ~200 files from node_modules cost each process ~1 s of CPU at start
 * (docs/benchmarks.md, twenty-ninth round). No bundle may import any of it dynamically: esbuild
 * would then defer the whole package's initialisation, and our module-level `sql` fragments ran
 * before it. The embedded database's driver is a side entry instead (pglite-database).
 */
const inlinedPackage = (path: string) => path === 'drizzle-orm' || path.startsWith('drizzle-orm/');

/** npm packages stay external (loaded from node_modules), but for `inlinedPackage`; our workspaces are inlined. */
const externalDependencies: Plugin = {
  name: 'external-dependencies',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@agentq/') || args.path.startsWith('node:') || inlinedPackage(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

async function buildServer(): Promise<void> {
  for (const [outdir, entries] of Object.entries(serverBundles)) {
    const absoluteOut = join(repoRoot, outdir);
    rmSync(absoluteOut, { recursive: true, force: true });
    await build({
      absWorkingDir: repoRoot,
      entryPoints: Object.fromEntries(Object.entries({ ...entries, ...sideEntries }).map(([name, source]) => [name, join(repoRoot, source)])),
      outdir: absoluteOut,
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'esm',
      sourcemap: true,
      plugins: [externalDependencies],
      logLevel: 'warning',
    });
    cpSync(join(repoRoot, 'shared/drizzle'), join(absoluteOut, 'drizzle'), { recursive: true });
  }
}

function buildWeb(): void {
  const result = spawnSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: join(repoRoot, 'web'), stdio: 'inherit' });
  if (result.status !== 0) throw new Error('web build failed');
}

/** The standalone web process (web/server.ts: security headers around adapter-node's server), beside the handler it imports. */
async function buildWebServer(): Promise<void> {
  await build({
    absWorkingDir: repoRoot,
    entryPoints: { server: join(repoRoot, 'web/server.ts') },
    outdir: join(repoRoot, 'web/build'),
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    sourcemap: true,
    plugins: [externalDependencies],
    logLevel: 'warning',
  });
}

const parts = [
  { name: 'server', inputs: serverInputs, stamp: 'infra/dist/.build-stamp', run: buildServer },
  { name: 'web', inputs: webInputs, stamp: 'web/build/.build-stamp', run: async () => { buildWeb(); await buildWebServer(); } },
];

for (const part of parts) {
  if (only.length > 0 && !only.includes(part.name)) continue;
  const hash = hashInputs(repoRoot, part.inputs);
  const stampPath = join(repoRoot, part.stamp);
  if (!force && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === hash) {
    console.log(`${part.name}: up to date`);
    continue;
  }
  const started = performance.now();
  await part.run();
  mkdirSync(join(stampPath, '..'), { recursive: true });
  writeFileSync(stampPath, hash);
  console.log(`${part.name}: built in ${Math.round(performance.now() - started)} ms (${relative(repoRoot, join(stampPath, '..'))})`);
}
