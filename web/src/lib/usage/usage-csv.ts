import type { AdminUsageReport, UsageReport, UsageSums } from './usage-api.ts';

/** One CSV for a usage report: a row per day, per model and (Admin → Usage) per user, then the totals. */
const HEADER = ['group', 'id', 'name', 'email', 'runs', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'total_tokens', 'cost_usd'];

/**
 * A cell as RFC 4180 quotes it; text a spreadsheet would read as a formula (=, +, -, @, tab, CR at
 * the start, as a model or user name could be) is prefixed with ' so it stays text.
 */
function cell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const sumsOf = (row: UsageSums) => [row.runs, row.inputTokens, row.outputTokens, row.reasoningTokens, row.totalTokens, row.cost];

/** The report as CSV text (CRLF line ends, as spreadsheets expect). */
export function usageCsv(report: UsageReport | AdminUsageReport): string {
  const rows: (string | number | null)[][] = [HEADER];
  for (const day of report.byDay) rows.push(['day', day.day, day.day, null, ...sumsOf(day)]);
  for (const model of report.byModel) rows.push(['model', model.modelId, model.modelName, null, ...sumsOf(model)]);
  if ('byUser' in report) for (const user of report.byUser) rows.push(['user', user.userId, user.userName, user.userEmail, ...sumsOf(user)]);
  rows.push(['total', null, null, null, ...sumsOf(report.totals)]);
  return `${rows.map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}

/** The file's name: the days it covers, in the report's calendar. */
export function usageCsvName(from: string, to: string): string {
  return `agentq-usage-${from}-to-${to}.csv`;
}
