/**
 * The embedded PGlite database of the all-in-one `npm start`. A module of its own, loaded only when
 * there is no DATABASE_URL: a compiled bundle (infra/compile) emits it beside itself as
 * pglite-database.js, with drizzle's PGlite driver inlined, so neither PGlite nor that driver is
 * loaded by a process on PostgreSQL, and the all-in-one does not load the driver's ~200 files
 * from node_modules (~1 s of CPU at start, infra/compile/build.ts).
 */
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';

export function openPglite<Schema extends Record<string, unknown>>(dataDir: string, schema: Schema, migrationsFolder: string) {
  const client = new PGlite(dataDir);
  const db = drizzle(client, { schema });
  return {
    db,
    migrate: () => migrate(db, { migrationsFolder }),
    close: () => client.close(),
  };
}
