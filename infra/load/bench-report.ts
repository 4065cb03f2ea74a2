/** A goal of issue 16: a bound on the value, on the difference to the baseline, or on the ratio to it. */
export type Goal = { kind: 'at-most' | 'within' | 'ratio-at-most' | 'ratio-at-least'; value: number };

export type BenchRow = {
  group: string;
  metric: string;
  agentq: number;
  baseline?: number;
  unit: string;
  goal: Goal;
  /** Filled in by `judge`. */
  ratio?: number;
  met?: boolean;
};

/** Computes the ratio to the baseline and whether the goal is met. */
export function judge(row: BenchRow): BenchRow {
  const ratio = row.baseline ? Math.round((row.agentq / row.baseline) * 100) / 100 : undefined;
  const base = row.baseline ?? 0;
  const met =
    row.goal.kind === 'at-most'
      ? row.agentq <= row.goal.value
      : row.goal.kind === 'within'
        ? row.agentq - base <= row.goal.value
        : row.goal.kind === 'ratio-at-most'
          ? ratio !== undefined && ratio <= row.goal.value
          : ratio !== undefined && ratio >= row.goal.value;
  return { ...row, ratio, met };
}

function describeGoal(row: BenchRow): string {
  const { kind, value } = row.goal;
  if (kind === 'at-most') return `≤ ${value}${row.unit === '×' ? '×' : ` ${row.unit}`}`.trim();
  if (kind === 'within') return `within ${value} ${row.unit} of baseline`;
  return kind === 'ratio-at-most' ? `ratio ≤ ${value}` : `ratio ≥ ${value}`;
}

/** The markdown table of every measurement next to its baseline, ratio and goal. */
export function renderBenchTable(rows: BenchRow[]): string {
  const lines = ['| measurement | | agentq | baseline | ratio | goal | met |', '|---|---|---|---|---|---|---|'];
  for (const row of rows.map(judge)) {
    const unit = row.unit && row.unit !== '×' ? ` ${row.unit}` : row.unit;
    lines.push(
      `| ${row.group} | ${row.metric} | ${row.agentq}${unit} | ${row.baseline === undefined ? '—' : `${row.baseline}${unit}`} | ${row.ratio === undefined ? '—' : `×${row.ratio}`} | ${describeGoal(row)} | ${row.met ? 'yes' : '**no**'} |`,
    );
  }
  return lines.join('\n');
}

/** How far each measurement is from its goal, as bars: 1 is the goal itself, left of it is met. */
export function renderBenchChart(rows: BenchRow[]): string {
  const judged = rows.map(judge);
  const width = 900;
  const rowHeight = 26;
  const left = 430;
  const scale = (width - left - 40) / 3;
  const score = (row: BenchRow) => {
    const { kind, value } = row.goal;
    const base = row.baseline ?? 0;
    if (kind === 'at-most') return value === 0 ? (row.agentq === 0 ? 0 : 3) : row.agentq / value;
    if (kind === 'within') return (row.agentq - base) / value;
    if (kind === 'ratio-at-most') return (row.ratio ?? 0) / value;
    return row.ratio ? value / row.ratio : 3;
  };
  const bars = judged
    .map((row, index) => {
      const y = 40 + index * rowHeight;
      const value = Math.max(0, Math.min(3, score(row)));
      const label = `${row.group.length > 52 ? `${row.group.slice(0, 50)}…` : row.group} — ${row.metric}`;
      return `<text x="${left - 8}" y="${y + 15}" font-size="11" text-anchor="end" font-family="sans-serif">${escapeXml(label)}</text><rect x="${left}" y="${y + 4}" width="${Math.max(1, value * scale)}" height="${rowHeight - 10}" fill="${row.met ? '#059669' : '#dc2626'}"><title>${escapeXml(`${row.agentq} ${row.unit} (${describeGoal(row)})`)}</title></rect>`;
    })
    .join('\n');
  const goalX = left + scale;
  const height = 60 + judged.length * rowHeight;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<rect width="100%" height="100%" fill="white"/>
<text x="${left}" y="22" font-size="14" font-family="sans-serif">Distance to each goal (1 = the goal; green met, red missed; capped at 3)</text>
${bars}
<line x1="${goalX}" y1="34" x2="${goalX}" y2="${height - 10}" stroke="#111" stroke-dasharray="4 3"/>
<text x="${goalX + 4}" y="${height - 12}" font-size="11" font-family="sans-serif">goal</text>
</svg>
`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
