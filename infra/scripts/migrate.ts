import './env-file.mjs';
import { createDb, databaseOptionsFromEnv } from '@agentq/shared/db';
import { getEnv } from '@agentq/shared/env';

/** `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded PGlite). */
const env = getEnv();
const database = await createDb(databaseOptionsFromEnv(env));
await database.migrate();
await database.close();
console.log(`migrated ${database.kind} database`);
