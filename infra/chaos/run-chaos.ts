import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { hasRedisServer } from '../scripts/redis-child';
import { findPostgresBin, startPrivatePostgres } from './private-postgres';
import { scenarios, type ScenarioResult } from './scenarios';

export type ChaosOptions = { scenarios: string[]; runs: number; log?: (line: string) => void; onResult?: (results: ScenarioResult[]) => void };

/** A result for a scenario that could not run here, saying why. */
function skipped(scenario: string, reason: string): ScenarioResult {
  return {
    scenario,
    description: '',
    runs: 0,
    terminal: 0,
    succeeded: 0,
    failed: 0,
    cancelled: 0,
    lost: 0,
    repeatedEffects: { 'non-idempotent': { keyed: 0, unkeyed: 0 }, idempotent: { keyed: 0, unkeyed: 0 } },
    doubledAnswers: 0,
    doubledLiveAnswers: 0,
    preToolText: { stored: 0, live: 0 },
    sse: { followers: 0, gaps: 0, duplicates: 0, unfinished: 0, unavailable503: 0 },
    crashes: { unexpectedExits: [], unhandled: [] },
    extra: {},
    violations: [],
    durationMs: 0,
    skipped: reason,
  };
}

/**
 * Runs the named scenarios one after another, each on its own redis-server and its own database in
 * one private PostgreSQL cluster (never the machine's shared services), and returns their results.
 */
export async function runChaos(options: ChaosOptions): Promise<ScenarioResult[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const unknown = options.scenarios.filter((name) => !scenarios[name]);
  if (unknown.length > 0) throw new Error(`Unknown scenario(s): ${unknown.join(', ')}. Known: ${Object.keys(scenarios).join(', ')}`);
  const bin = findPostgresBin();
  const missing = !hasRedisServer() ? 'redis-server is not installed (apt-get install redis-server)' : !bin ? 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)' : undefined;
  if (missing) {
    log(`skipping every scenario: ${missing}`);
    return options.scenarios.map((name) => skipped(name, missing));
  }
  const pg = await startPrivatePostgres(bin!);
  const results: ScenarioResult[] = [];
  // Interrupted (Ctrl-C, a timeout): the cluster runs detached from us, so stop it on the way out.
  const onSignal = () => {
    pg.dispose();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const name of options.scenarios) {
      log(`\n▶ ${name} (runs: ${options.runs})`);
      try {
        const result = await scenarios[name]!.run({ runs: options.runs, pg, log });
        results.push(result);
        options.onResult?.(results);
        log(formatTable([result]));
        log(`  ${result.violations.length === 0 ? 'ok' : `VIOLATIONS: ${result.violations.join('; ')}`} (${Math.round(result.durationMs / 1000)} s)`);
      } catch (error) {
        const failed = skipped(name, `scenario error: ${(error as Error).message.slice(0, 500)}`);
        failed.violations.push('the scenario itself failed');
        results.push(failed);
        options.onResult?.(results);
        log(`  ERROR ${(error as Error).stack ?? error}`);
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    pg.dispose();
  }
  return results;
}

/** The results as a fixed-width table, one row per scenario. */
export function formatTable(results: ScenarioResult[]): string {
  const header = ['scenario', 'runs', 'terminal', 'ok/fail/canc', 'lost', 'rep non-idem k/u', 'rep idem k/u', 'doubled stored/live', 'pre-tool text bad s/l', 'sse gaps/dups/unfin (followers)', 'crashes', 'result'];
  const rows = results.map((result) =>
    result.skipped && result.runs === 0
      ? [result.scenario, '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', `skipped: ${result.skipped}`]
      : [
          result.scenario,
          String(result.runs),
          String(result.terminal),
          `${result.succeeded}/${result.failed}/${result.cancelled}`,
          String(result.lost),
          `${result.repeatedEffects['non-idempotent'].keyed}/${result.repeatedEffects['non-idempotent'].unkeyed}`,
          `${result.repeatedEffects.idempotent.keyed}/${result.repeatedEffects.idempotent.unkeyed}`,
          `${result.doubledAnswers}/${result.doubledLiveAnswers}`,
          `${result.preToolText.stored}/${result.preToolText.live}`,
          `${result.sse.gaps}/${result.sse.duplicates}/${result.sse.unfinished} (${result.sse.followers})`,
          String(result.crashes.unexpectedExits.length + result.crashes.unhandled.length),
          result.violations.length === 0 ? 'ok' : `${result.violations.length} violation(s)`,
        ],
  );
  const widths = header.map((title, index) => Math.max(title.length, ...rows.map((row) => row[index]!.length)));
  const line = (cells: string[]) => cells.map((cell, index) => cell.padEnd(widths[index]!)).join(' | ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('-|-'), ...rows.map(line)].join('\n');
}

export function writeReport(path: string, results: ScenarioResult[], options: ChaosOptions): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ at: new Date().toISOString(), options: { runs: options.runs, scenarios: options.scenarios }, results }, null, 2)}\n`);
}
