import './env-file.mjs';
import { createDb } from '@agentq/shared/db';
import { getEnv } from '@agentq/shared/env';

/** `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded PGlite). */
const env = getEnv();
const database = await createDb({ url: env.DATABASE_URL, dataDir: env.DATA_DIR, prepare: env.DATABASE_PREPARE });
await database.migrate();
await database.close();
console.log(`migrated ${database.kind} database`);
