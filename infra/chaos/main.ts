import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable, runChaos, writeReport } from './run-chaos';
import { scenarios } from './scenarios';

/**
 * `npm run chaos [-- --runs N] [--scenario a,b] [--out path]`: runs the fault scenarios against the
 * production shape (API + 2 workers) on private Redis and PostgreSQL, prints a table, writes JSON.
 * Exits 1 when any guarantee was violated.
 */
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    scenario: { type: 'string', multiple: true },
    out: { type: 'string', default: '.data/chaos/report.json' },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('--runs must be a positive integer');
  process.exit(2);
}
const names = (values.scenario ?? []).flatMap((entry) => entry.split(',')).filter(Boolean);
const out = resolve(values.out!);
const options = { runs, scenarios: names.length > 0 ? names : Object.keys(scenarios) };
// Written after every scenario, so an interrupted suite still leaves what it measured.
const results = await runChaos({ ...options, onResult: (sofar) => writeReport(out, sofar, options) });
writeReport(out, results, options);
console.log(`\n${formatTable(results)}\n\nJSON: ${out}`);
for (const result of results) {
  for (const violation of result.violations) console.log(`✗ ${result.scenario}: ${violation}`);
  for (const crash of [...result.crashes.unexpectedExits, ...result.crashes.unhandled]) console.log(`  ${result.scenario} crash: ${crash}`);
}
process.exit(results.some((result) => result.violations.length > 0) ? 1 : 0);
