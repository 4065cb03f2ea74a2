import { writeFileSync } from 'node:fs';
import type { RunSample } from './drive-runs';
import type { HarnessOptions } from './options';
import { percentiles, round, type Percentiles } from './stats';

export type LoadReport = {
  runs: number;
  concurrency: number;
  scenario: string;
  workers: number;
  subscribers?: number;
  ttftMs: Percentiles;
  directTtftMs: Percentiles;
  firstEventMs: Percentiles;
  e2eMs: Percentiles;
  directE2eMs: Percentiles;
  enqueueMs: Percentiles;
  runsPerSec: number;
  directRunsPerSec: number;
  tokensEmitted: number;
  tokensDelivered: number;
  tokensPerSecDelivered: number;
  lostEvents: number;
  duplicateEvents: number;
  outOfOrderEvents: number;
  errors: number;
  errorSamples: string[];
  rawBullmqJobsPerSec: number;
  toolJobsPerSec: number;
  redisRttMs: number;
  ratios: { ttftVsDirect: number; e2eVsDirect: number; runsPerSecVsRawBullmq: number };
  machine: { cpus: number; node: string };
  fakeModel: { ttftMs: number; intervalMs: number; tokens: number };
  wallMs: number;
  throughput: { second: number; completed: number }[];
};

export function buildReport(
  options: HarnessOptions,
  samples: RunSample[],
  wallMs: number,
  baselines: { direct: { ttftMs: Percentiles; e2eMs: Percentiles; runsPerSec: number }; rawBullmqJobsPerSec: number; toolJobsPerSec: number; redisRttMs: number },
  machine: { cpus: number; node: string },
): LoadReport {
  const ok = samples.filter((sample) => sample.ok);
  const streams = samples.flatMap((sample) => sample.streams);
  const delivered = samples.reduce((sum, sample) => sum + sample.tokensDelivered, 0);
  const firstStart = Math.min(...samples.map((sample) => sample.startedAt));
  const bins = new Map<number, number>();
  for (const sample of ok) {
    const second = Math.floor(((sample.finishedAt ?? firstStart) - firstStart) / 1000);
    bins.set(second, (bins.get(second) ?? 0) + 1);
  }
  const lastSecond = Math.max(0, ...bins.keys());
  const ttftMs = percentiles(ok.map((sample) => sample.ttftMs ?? 0));
  const e2eMs = percentiles(ok.map((sample) => sample.e2eMs ?? 0));
  const runsPerSec = round(ok.length / (wallMs / 1000));
  return {
    runs: options.runs,
    concurrency: options.concurrency,
    scenario: options.scenario,
    workers: options.workers,
    subscribers: options.scenario === 'fanout' ? options.subscribers : undefined,
    ttftMs,
    directTtftMs: baselines.direct.ttftMs,
    firstEventMs: percentiles(ok.map((sample) => sample.firstEventMs ?? 0)),
    e2eMs,
    directE2eMs: baselines.direct.e2eMs,
    enqueueMs: percentiles(samples.filter((sample) => sample.enqueueMs > 0).map((sample) => sample.enqueueMs)),
    runsPerSec,
    directRunsPerSec: baselines.direct.runsPerSec,
    tokensEmitted: options.runs * options.tokens,
    tokensDelivered: delivered,
    tokensPerSecDelivered: round(delivered / (wallMs / 1000)),
    lostEvents: streams.reduce((sum, check) => sum + check.lost, 0),
    duplicateEvents: streams.reduce((sum, check) => sum + check.duplicated, 0),
    outOfOrderEvents: streams.reduce((sum, check) => sum + check.outOfOrder, 0),
    errors: samples.filter((sample) => !sample.ok).length,
    errorSamples: [...new Set(samples.filter((sample) => sample.error).map((sample) => sample.error!))].slice(0, 5),
    rawBullmqJobsPerSec: baselines.rawBullmqJobsPerSec,
    toolJobsPerSec: baselines.toolJobsPerSec,
    redisRttMs: baselines.redisRttMs,
    ratios: {
      ttftVsDirect: ratio(ttftMs.p50, baselines.direct.ttftMs.p50),
      e2eVsDirect: ratio(e2eMs.p50, baselines.direct.e2eMs.p50),
      runsPerSecVsRawBullmq: ratio(runsPerSec, baselines.rawBullmqJobsPerSec, 4),
    },
    machine,
    fakeModel: { ttftMs: options.ttft, intervalMs: options.interval, tokens: options.tokens },
    wallMs: Math.round(wallMs),
    throughput: Array.from({ length: lastSecond + 1 }, (_, second) => ({ second, completed: bins.get(second) ?? 0 })),
  };
}

function ratio(value: number, base: number, digits = 2): number {
  return base > 0 ? round(value / base, digits) : 0;
}

export function printReport(report: LoadReport): void {
  const row = (label: string, value: Percentiles, base?: Percentiles) =>
    `  ${label.padEnd(22)} p50 ${String(value.p50).padStart(8)}  p95 ${String(value.p95).padStart(8)}  p99 ${String(value.p99).padStart(8)}${base ? `   (direct p50 ${base.p50})` : ''}`;
  const lines = [
    '',
    `scenario ${report.scenario}: ${report.runs} runs at concurrency ${report.concurrency}, ${report.workers} worker process(es)${report.subscribers ? `, ${report.subscribers} subscribers/run` : ''}`,
    row('enqueue ms', report.enqueueMs),
    row('first event ms', report.firstEventMs),
    row('first token ms', report.ttftMs, report.directTtftMs),
    row('end-to-end ms', report.e2eMs, report.directE2eMs),
    `  runs/s ${report.runsPerSec} (direct ${report.directRunsPerSec})   tokens delivered ${report.tokensDelivered}/${report.tokensEmitted} (${report.tokensPerSecDelivered}/s)`,
    `  events lost ${report.lostEvents}, duplicated ${report.duplicateEvents}, out of order ${report.outOfOrderEvents}; errors ${report.errors}${report.errorSamples.length ? ` (${report.errorSamples.join('; ')})` : ''}`,
    `  baselines: raw BullMQ ${report.rawBullmqJobsPerSec} jobs/s, tool executions ${report.toolJobsPerSec}/s, Redis RTT ${report.redisRttMs} ms`,
    `  ratios: first token ×${report.ratios.ttftVsDirect} of direct, end-to-end ×${report.ratios.e2eVsDirect} of direct, runs/s = ${report.ratios.runsPerSecVsRawBullmq} of raw BullMQ jobs/s`,
    '',
  ];
  console.log(lines.join('\n'));
}

/** An SVG beside the JSON: end-to-end and first-token latency histograms, and runs completed per second. */
export function writeChart(file: string, report: LoadReport, samples: RunSample[]): void {
  const width = 900;
  const panel = 220;
  const ok = samples.filter((sample) => sample.ok);
  const histogram = (values: number[], bins = 30) => {
    const max = Math.max(1, ...values);
    const counts = new Array(bins).fill(0) as number[];
    for (const value of values) counts[Math.min(bins - 1, Math.floor((value / max) * bins))]!++;
    return { counts, max };
  };
  const bars = (values: number[], top: number, color: string, title: string) => {
    const { counts, max } = histogram(values);
    const peak = Math.max(1, ...counts);
    const barWidth = (width - 80) / counts.length;
    const rects = counts
      .map((count, index) => {
        const height = (count / peak) * (panel - 60);
        return `<rect x="${60 + index * barWidth}" y="${top + panel - 30 - height}" width="${barWidth - 2}" height="${height}" fill="${color}"><title>${count}</title></rect>`;
      })
      .join('');
    return `<text x="60" y="${top + 20}" font-size="14" font-family="sans-serif">${title}</text>${rects}<text x="60" y="${top + panel - 10}" font-size="11" font-family="sans-serif">0 ms</text><text x="${width - 20}" y="${top + panel - 10}" font-size="11" text-anchor="end" font-family="sans-serif">${Math.round(max)} ms</text>`;
  };
  const throughput = report.throughput;
  const peak = Math.max(1, ...throughput.map((point) => point.completed));
  const top = panel * 2;
  const points = throughput
    .map((point, index) => `${60 + (index / Math.max(1, throughput.length - 1)) * (width - 80)},${top + panel - 30 - (point.completed / peak) * (panel - 60)}`)
    .join(' ');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${panel * 3}" viewBox="0 0 ${width} ${panel * 3}">
<rect width="100%" height="100%" fill="white"/>
${bars(ok.map((sample) => sample.e2eMs ?? 0), 0, '#4f46e5', `End-to-end latency (${report.scenario}, ${report.runs} runs, c=${report.concurrency}) p50 ${report.e2eMs.p50} ms, p99 ${report.e2eMs.p99} ms`)}
${bars(ok.map((sample) => sample.ttftMs ?? 0), panel, '#059669', `Time to first token: p50 ${report.ttftMs.p50} ms (direct ${report.directTtftMs.p50} ms)`)}
<text x="60" y="${top + 20}" font-size="14" font-family="sans-serif">Runs completed per second (peak ${peak})</text>
<polyline fill="none" stroke="#dc2626" stroke-width="2" points="${points}"/>
</svg>
`;
  writeFileSync(file, svg);
}
