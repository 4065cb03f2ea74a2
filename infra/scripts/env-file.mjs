// Side-effect module: loads `.env` from the repository root when it exists, for the production
// entry points and admin scripts. Variables already in the environment win over the file.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const path = process.env.AGENTQ_ENV_FILE ?? fileURLToPath(new URL('../../.env', import.meta.url));
if (existsSync(path)) process.loadEnvFile(path);
