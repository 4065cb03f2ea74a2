import type { TransactionSql } from 'postgres';

/**
 * The postgres.js client drizzle is given, with every statement prepared (named, cached per
 * connection) unless the operator turned preparing off (`DATABASE_PREPARE=0`, for PgBouncer).
 *
 * Why: drizzle runs queries it did not `.prepare()` as unnamed statements, and postgres.js sends an
 * unnamed statement with parameters as Parse+Describe, waits for the parameter types, then sends
 * Bind+Execute — two round trips per statement, and nothing can be pipelined behind it (the
 * "pipelined" statements of a transaction went one by one). A named statement is described once per
 * connection; after that each call is one Bind+Execute that pipelines, and PostgreSQL skips the parse
 * and plan. The statement shapes are the code's queries, so the per-connection cache stays bounded.
 */
export function preparingClient<T extends object>(sql: T): T {
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        const unsafe = Reflect.get(target, property, receiver) as (...args: unknown[]) => unknown;
        return (query: string, parameters?: unknown[], options?: Record<string, unknown>) => unsafe.call(target, query, parameters, { ...options, prepare: true });
      }
      if (property === 'begin' || property === 'savepoint') {
        // Transactions hand drizzle a client of their own: it prepares the same way.
        return (...args: unknown[]) => {
          const callback = args.at(-1) as (tx: TransactionSql) => unknown;
          return (Reflect.get(target, property, receiver) as (...inner: unknown[]) => unknown).call(target, ...args.slice(0, -1), (tx: TransactionSql) => callback(preparingClient(tx)));
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}
