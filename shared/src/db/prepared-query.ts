import { Param, sql, type Column, type SQL } from 'drizzle-orm';
import type { Database } from './client';

/**
 * A hot query built once per database handle, then executed with new values for its
 * `sql.placeholder`s. drizzle builds a query's SQL text on every call (column lists, entity checks:
 * about a fifth of the API's CPU under load, docs/benchmarks.md); a prepared one skips that. A
 * transaction handle gets its own copy, built on first use, like any other query.
 * @example
 * const runById = preparedQuery((db) => db.select().from(runs).where(eq(runs.id, sql.placeholder('id'))).prepare('run_by_id'));
 * const [run] = await runById(db).execute({ id });
 */
export function preparedQuery<Query>(build: (db: Database) => Query): (db: Database) => Query {
  const byDatabase = new WeakMap<Database, Query>();
  return (db) => {
    let query = byDatabase.get(db);
    if (query === undefined) {
      query = build(db);
      byDatabase.set(db, query);
    }
    return query;
  };
}

/**
 * A placeholder filled through `column`'s own encoding (JSON text for jsonb, ISO text for a date),
 * as a literal value would be: for an UPDATE's `set`, whose types take values, not placeholders.
 * @example db.update(runs).set({ result: columnPlaceholder('result', runs.result) })
 */
export function columnPlaceholder(name: string, column: Column): SQL {
  return sql`${new Param(sql.placeholder(name), column)}`;
}
