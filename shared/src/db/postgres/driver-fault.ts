/**
 * postgres.js 3.4.9 (the newest release) has a bug that throws from a `setImmediate`, where no
 * `try/catch` of ours can see it: when a connection closes (PostgreSQL stopped, backend killed),
 * `closed()` nulls its socket, but a transaction then sends its own `ROLLBACK` (or the transaction
 * body its next query) on that connection, and the deferred `nextWrite` runs
 * `socket.write` on null: `TypeError: Cannot read properties of null (reading 'write')`
 * (porsager/postgres #1154, #1208; fixes #1168/#1209 unmerged). The connection is then poisoned for
 * good: its write timer stays set, so every later write on it is buffered and never sent.
 *
 * The guard here is narrow: it recognises exactly that exception and replaces every pool that
 * registered itself (see replaceable-client.ts), so no query ever uses a poisoned connection again.
 * Remove it when postgres.js ships the fix (the test beside it says when: its unguarded control
 * stops crashing).
 */

const replacers = new Set<() => void>();

/** True for the driver's null-socket TypeError thrown from `nextWrite` in postgres/src/connection.js. */
export function isPostgresNullSocketFault(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const stack = error.stack ?? '';
  return error.message.includes("reading 'write'") && /\bnextWrite\b/.test(stack) && /[\\/]postgres[\\/](cjs[\\/])?src[\\/]connection\.js/.test(stack);
}

/** Registers a pool to replace after a driver fault; returns the unregister function. */
export function onPostgresDriverFault(replace: () => void): () => void {
  replacers.add(replace);
  return () => replacers.delete(replace);
}

/**
 * For a process's `uncaughtException` handler: when `error` is the driver fault, replaces every
 * registered pool and returns true (the process can go on); otherwise returns false.
 */
export function recoverFromPostgresDriverFault(error: unknown): boolean {
  if (!isPostgresNullSocketFault(error)) return false;
  for (const replace of replacers) replace();
  return true;
}
