import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureLocalServices } from './services';

/**
 * `npm test`: makes sure PostgreSQL and Redis run, builds the web app, then runs every
 * workspace's vitest suite one after another (two cores: no parallel suites) and sums up.
 */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const WORKSPACES = ['shared', 'api', 'worker', 'infra', 'web'];
const filter = process.argv.slice(2);

await ensureLocalServices();

// Rebuilds the web app only when its sources changed since the last build (stamp in web/build).
const build = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'infra/compile/build.ts'), 'web'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
if (build.status !== 0) {
  console.error('web build failed');
  process.exit(1);
}

const reports = mkdtempSync(join(tmpdir(), 'agentq-test-'));
let passed = 0;
let failed = 0;
let skipped = 0;
const failedWorkspaces: string[] = [];
// Repeated at the very end: CI keeps only the tail of the output, where a failure named
// hundreds of lines earlier is lost.
const failedTests: string[] = [];
for (const workspace of WORKSPACES.filter((name) => filter.length === 0 || filter.includes(name))) {
  console.log(`\n=== ${workspace} ===`);
  const outputFile = join(reports, `${workspace}.json`);
  const result = spawnSync(
    process.execPath,
    [join(repoRoot, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${outputFile}`],
    { cwd: join(repoRoot, workspace), stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0' } },
  );
  if (existsSync(outputFile)) {
    const report = JSON.parse(readFileSync(outputFile, 'utf8')) as VitestJsonReport;
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + report.numTodoTests;
    if (report.numFailedTests > 0 || result.status !== 0) failedWorkspaces.push(workspace);
    failedTests.push(...failuresOf(report, workspace));
  } else {
    failedWorkspaces.push(workspace);
  }
  if (result.status !== 0 && !failedWorkspaces.includes(workspace)) failedWorkspaces.push(workspace);
}

if (failedTests.length > 0) console.log(`\nFailed tests:\n${failedTests.join('\n')}`);
if (failedWorkspaces.length > 0) console.log(`\nFailing workspaces: ${failedWorkspaces.join(', ')}`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failedWorkspaces.length > 0 || passed === 0 ? 1 : 0);

type VitestJsonReport = {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults?: { name: string; status: string; message?: string; assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[] }[];
};

/** One line per failed test (and per file that failed outside a test), with the first line of its error. */
function failuresOf(report: VitestJsonReport, workspace: string): string[] {
  const lines: string[] = [];
  for (const file of report.testResults ?? []) {
    const path = file.name.slice(file.name.indexOf(`/${workspace}/`) + 1);
    const failedAssertions = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failedAssertions) lines.push(`  ${path} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    if (failedAssertions.length === 0 && file.status === 'failed') lines.push(`  ${path}: ${firstLine(file.message)}`);
  }
  return lines;
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n').find((line) => line.trim() !== '')?.trim().slice(0, 300) ?? '';
}
