import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
// Static: the compiled bundles inline drizzle-orm, and a dynamic import of any of it would defer
// the whole package's initialisation there (infra/compile/build.ts). PGlite's is a module apart.
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres, { type Sql } from 'postgres';
import { attachCommitLane } from './commit-lane';
import { noDelaySocketOption } from './postgres/no-delay-socket';
import { createReplaceableClient } from './postgres/replaceable-client';
import { preparingClient } from './prepared-client';
import { sideEntryUrl } from '../side-entry';
import type { Env } from '../env';
import * as schema from './schema';

export type Schema = typeof schema;
/** The one database type the services take first: postgres-js and PGlite both satisfy it. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export type DbHandle = {
  db: Database;
  kind: 'postgres' | 'pglite';
  /** Applies pending drizzle-kit migrations; re-running is a no-op. */
  migrate: () => Promise<void>;
  /**
   * Opens every connection of the pool and the commit lane now (a no-op with `warmPool: false`, DATABASE_POOL_WARM=0). postgres.js connects lazily, so the first burst of work
   * after a start (20 runs arriving at once) otherwise waits for a PostgreSQL backend to be forked per
   * connection: 50–140 ms more on the first wave's first tokens (tool scenario, 20 runs at once, two cores;
   * docs/benchmarks.md). Idle connections stay open (postgres.js closes none by default).
   */
  warm: () => Promise<void>;
  close: () => Promise<void>;
};

// From sources: shared/drizzle; a compiled bundle (infra/compile) carries a copy beside itself.
const MIGRATIONS_FOLDER = [new URL('./drizzle', import.meta.url), new URL('../../drizzle', import.meta.url)].map((url) => fileURLToPath(url)).find((path) => existsSync(path))!;

export type DbOptions = {
  url?: string;
  dataDir?: string;
  poolSize?: number;
  prepare?: boolean;
  warmPool?: boolean;
  /** PostgreSQL only: called with each statement as it is sent, on every connection (tests count a path's statements with it). */
  onStatement?: (statement: string) => void;
};

/** What every process opens from its environment, so a setting such as DATABASE_PREPARE reaches them all. */
export function databaseOptionsFromEnv(env: Pick<Env, 'DATABASE_URL' | 'DATA_DIR' | 'DATABASE_POOL_SIZE' | 'DATABASE_PREPARE' | 'DATABASE_POOL_WARM'>): DbOptions {
  return { url: env.DATABASE_URL, dataDir: env.DATA_DIR, poolSize: env.DATABASE_POOL_SIZE, prepare: env.DATABASE_PREPARE, warmPool: env.DATABASE_POOL_WARM };
}

/**
 * Runs `migrate` while holding a transaction-level advisory lock on a connection of its own: API
 * replicas booting together on a new database otherwise race through the same CREATE statements
 * and all but one fail. A transaction lock (not a session one) holds behind PgBouncer in
 * transaction mode too; the others wait, then find nothing left to apply.
 */
async function migrateExclusively(url: string, migrate: () => Promise<void>): Promise<void> {
  const lock = postgres(url, { max: 1, prepare: false, onnotice: () => {} });
  try {
    await lock.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('agentq.migrate'))`;
      await migrate();
    });
  } finally {
    await lock.end({ timeout: 5 });
  }
}

/** The rows of a raw statement on either driver: postgres-js answers an array, PGlite `{ rows }`. */
export async function executeRows<Row>(db: Database, query: SQL): Promise<Row[]> {
  const result = await db.execute(query);
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Row[];
}

/**
 * Opens PostgreSQL when `url` is given, else an embedded PGlite under `dataDir` (`memory://` for a throwaway one).
 * PGlite is one process's database: only the all-in-one `npm start` uses it.
 */
export async function createDb(options: DbOptions): Promise<DbHandle> {
  if (options.url) {
    // prepare: false for PgBouncer in transaction mode (DATABASE_PREPARE=0): a server connection
    // there is not the client's for longer than a transaction, so named statements go missing.
    // Replaceable: a pool poisoned by the driver's null-socket fault is swapped (postgres/driver-fault.ts).
    // Connections open with TCP_NODELAY (postgres/no-delay-socket.ts).
    const prepare = options.prepare ?? true;
    const open = (max: number) => {
      const debug = options.onStatement && ((_connection: number, statement: string) => options.onStatement!(statement));
      const client = createReplaceableClient(() => postgres(options.url!, { max, prepare, onnotice: () => {}, ...(debug && { debug }), ...noDelaySocketOption() }));
      return { client, db: drizzlePostgres({ client: (prepare ? preparingClient(client) : client) as unknown as Sql, schema }) };
    };
    const { client: pool, db } = open(options.poolSize ?? 10);
    // One more connection for the runs' inserts, whose statements pipeline on it (commit-lane.ts).
    // Not behind PgBouncer (DATABASE_PREPARE=0): nothing pipelines there, so one connection would queue them.
    const lane = prepare ? open(1) : undefined;
    if (lane) attachCommitLane(db as unknown as Database, lane.db as unknown as Database);
    return {
      db: db as unknown as Database,
      kind: 'postgres',
      migrate: () => migrateExclusively(options.url!, () => migratePostgres(db, { migrationsFolder: MIGRATIONS_FOLDER })),
      // One query per connection, all at once: the pool opens a connection for each while the others are busy.
      warm: async () => {
        if (options.warmPool === false) return;
        await Promise.all([...Array.from({ length: options.poolSize ?? 10 }, () => pool.unsafe('select 1')), lane?.client.unsafe('select 1')]);
      },
      close: async () => {
        await Promise.all([pool.end({ timeout: 5 }), lane?.client.end({ timeout: 5 })]);
      },
    };
  }
  const { openPglite } = (await import(sideEntryUrl(import.meta.url, 'pglite-database').href)) as typeof import('./pglite-database');
  const inMemory = options.dataDir === 'memory://';
  const dataDir = inMemory ? 'memory://' : resolve(options.dataDir ?? '.data', 'pglite');
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const pglite = openPglite(dataDir, schema, MIGRATIONS_FOLDER);
  return { db: pglite.db as unknown as Database, kind: 'pglite', migrate: pglite.migrate, warm: async () => {}, close: pglite.close };
}
