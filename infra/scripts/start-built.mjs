// `npm run start:api|start:worker|start:web|worker:health|demo-model|migrate|create-admin`: runs compiled output in this process
// (no wrapper process, so signals reach the server), or says in one line how to build it.
// Loads `.env` first (see env-file.mjs).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import './env-file.mjs';

const entries = {
  api: 'api/dist/index.js',
  worker: 'worker/dist/index.js',
  'worker-health': 'worker/dist/health.js',
  web: 'web/build/server.js',
  'demo-model': 'infra/dist/demo-model.js',
  migrate: 'infra/dist/migrate.js',
  'create-admin': 'infra/dist/create-admin.js',
};
const name = process.argv[2];
const entry = entries[name];
if (!entry) {
  console.error(`usage: start-built.mjs ${Object.keys(entries).join('|')}`);
  process.exit(2);
}
const path = fileURLToPath(new URL(`../../${entry}`, import.meta.url));
if (!existsSync(path)) {
  console.error(`${entry} is missing: run \`npm run build\` first`);
  process.exit(1);
}
process.argv.splice(1, 2, path);
await import(pathToFileURL(path).href);
