/** A one-line progress bar on stderr (redrawn in place on a terminal, a line per 10% otherwise). */
export function createProgress(label: string, total: number, quiet = false) {
  const interactive = process.stderr.isTTY;
  let lastDecile = -1;
  const started = performance.now();
  return {
    update(done: number, note = '') {
      if (quiet) return;
      const ratio = total === 0 ? 1 : done / total;
      const width = 30;
      const filled = Math.round(ratio * width);
      const elapsed = ((performance.now() - started) / 1000).toFixed(1);
      const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${elapsed}s ${note}`;
      if (interactive) process.stderr.write(`\r${line}`);
      else if (Math.floor(ratio * 10) !== lastDecile) {
        lastDecile = Math.floor(ratio * 10);
        process.stderr.write(`${line}\n`);
      }
    },
    done() {
      if (!quiet && interactive) process.stderr.write('\n');
    },
  };
}
