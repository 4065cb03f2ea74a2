import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getEnvOrExit } from '@agentq/shared/env';
import { createLogger, guardProcess } from '@agentq/shared/logger';
import { startAllInOne } from './all-in-one';

const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** `npm start`: the whole product in one process. */
async function main() {
  // A bad variable (say, an incomplete OIDC_* set) is one line per problem on stderr, not a stack trace.
  const env = getEnvOrExit();
  const logger = createLogger({ level: env.LOG_LEVEL, name: 'agentq' });
  guardProcess(logger);
  let app: Awaited<ReturnType<typeof startAllInOne>>;
  try {
    app = await startAllInOne({ env, logger, repoRoot });
  } catch (error) {
    if ((error as { userFacing?: boolean }).userFacing) {
      console.error(`\n${(error as Error).message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const login = env.ADMIN_EMAIL
    ? `Log in as ${env.ADMIN_EMAIL} with ADMIN_PASSWORD.`
    : app.firstAdmin
      ? `Log in as ${app.firstAdmin.email} with password ${app.firstAdmin.password} (also saved in ${env.DATA_DIR}/initial-admin.txt).`
      : `Log in with your account (the first admin's credentials are in ${env.DATA_DIR}/initial-admin.txt).`;
  console.log(`\nagentq is running at ${app.url}  (database: ${app.database})\n${login}\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

await main();
