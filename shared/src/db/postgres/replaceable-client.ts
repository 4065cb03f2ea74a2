import type { Sql } from 'postgres';
import { onPostgresDriverFault } from './driver-fault';

/** The part of a postgres.js client drizzle's postgres-js driver uses, forwarded to the current pool. */
export type ReplaceableClient = Pick<Sql, 'options' | 'unsafe' | 'begin' | 'reserve' | 'end'> & {
  /** Opens a fresh pool for every new query and ends the old one (in-flight queries get 5 s). */
  replace: () => void;
  /** How many times the pool was replaced. */
  replacements: () => number;
};

/**
 * A postgres.js pool that can be swapped under drizzle without rebuilding the `db` every module
 * holds: after the driver's null-socket fault (driver-fault.ts) a connection of the old pool is
 * poisoned, so the whole pool is retired. Parsers and serializers that drizzle set on the first
 * pool's options are carried over to each new one.
 */
export function createReplaceableClient(open: () => Sql): ReplaceableClient {
  let current = open();
  let replacements = 0;
  let ended = false;
  const unregister = onPostgresDriverFault(() => client.replace());
  const client: ReplaceableClient = {
    get options() {
      return current.options;
    },
    unsafe: ((...args: Parameters<Sql['unsafe']>) => current.unsafe(...args)) as Sql['unsafe'],
    begin: ((...args: Parameters<Sql['begin']>) => (current.begin as (...a: unknown[]) => unknown)(...args)) as Sql['begin'],
    reserve: () => current.reserve(),
    end: (options) => {
      ended = true;
      unregister();
      return current.end(options);
    },
    replace: () => {
      if (ended) return;
      const previous = current;
      current = open();
      Object.assign(current.options.parsers, previous.options.parsers);
      Object.assign(current.options.serializers, previous.options.serializers);
      replacements += 1;
      // Errors of the old pool's last queries reach their callers; ending must not throw here.
      previous.end({ timeout: 5 }).catch(() => {});
    },
    replacements: () => replacements,
  };
  return client;
}
