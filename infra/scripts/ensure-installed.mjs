// Runs on whatever Node the shell has: `npm start` on a fresh clone installs what is missing first.
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;
if (!existsSync(`${root}node_modules/.bin/tsx`) || !existsSync(`${root}node_modules/.bin/node`)) {
  console.log('Installing dependencies (first run)...');
  execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
