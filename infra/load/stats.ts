export type Percentiles = { p50: number; p95: number; p99: number };

/** Nearest-rank percentiles in ms, rounded to 0.1 ms; zeros when there are no samples. */
export function percentiles(samples: number[]): Percentiles {
  if (samples.length === 0) return { p50: 0, p95: 0, p99: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! * 10) / 10;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
