import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SKIPPED = new Set(['node_modules', 'dist', 'build', '.svelte-kit', '.turbo']);

/** One hash over the names and contents of every file under `paths` (files or folders, relative to `root`). */
export function hashInputs(root: string, paths: string[]): string {
  const hash = createHash('sha256');
  const visit = (relativePath: string) => {
    const absolute = join(root, relativePath);
    let stats;
    try {
      stats = statSync(absolute);
    } catch {
      return;
    }
    if (stats.isDirectory()) {
      // Tests don't change what runs.
      for (const name of readdirSync(absolute).sort()) if (!SKIPPED.has(name) && !/\.test\.ts$/.test(name)) visit(join(relativePath, name));
    } else {
      hash.update(`${relativePath}\0`);
      hash.update(readFileSync(absolute));
      hash.update('\0');
    }
  };
  for (const path of paths) visit(path);
  return hash.digest('hex');
}
