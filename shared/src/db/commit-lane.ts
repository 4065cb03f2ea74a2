import { sql } from 'drizzle-orm';
import type { Database } from './client';

/**
 * One connection of its own for the hottest durable writes (the API's run inserts; a worker's
 * standalone execution ends, tools.ts writeToolLog), so that concurrent statements pipeline:
 * postgres.js sends the statements queued in one turn of the event loop in one socket write and
 * reads their answers together, where the pool would give
 * each its own connection, write and read (a loopback socket write costs ~0.1–0.2 ms of CPU on this
 * VM). A statement that finds the lane idle commits as usual. One that joins statements already in
 * flight commits without waiting for its WAL flush (each commit on one connection would wait for
 * its own flush in turn) and is made durable by the lane's next barrier: a statement queued behind
 * it on the same connection that writes one WAL record (a transactional logical message: no table,
 * no privilege) and commits synchronously, flushing the WAL up to its own commit record and so
 * every commit before it. One barrier serves every statement queued in the same turn.
 */
type CommitLane = {
  db: Database;
  /** Statements sent and not yet answered. */
  inFlight: number;
  /** The barrier that will follow the statements queued in this turn, once the turn ends. */
  nextBarrier?: Promise<void>;
};

/** synchronous_commit for this statement's transaction only: pass it as the statement's `synchronousCommit` placeholder. */
export type SynchronousCommit = 'on' | 'off';

export const setSynchronousCommit = sql<string>`set_config('synchronous_commit', ${sql.placeholder('synchronousCommit')}, true)`;

/** The same, always off: for a statement whose loss in a crash something later repairs (a chat run's claim). */
export const commitWithoutFlush = sql<string>`set_config('synchronous_commit', 'off', true)`;

const lanes = new WeakMap<Database, CommitLane>();

/** Registers `lane` as `db`'s commit lane (createDb does, for PostgreSQL). */
export function attachCommitLane(db: Database, lane: Database): void {
  lanes.set(db, { db: lane, inFlight: 0 });
}

/**
 * Runs a statement that takes a `synchronousCommit` placeholder (setSynchronousCommit) on `db`'s
 * lane when it has one, else on `db` committing as usual. `durable` resolves once its commit is on
 * disk; nothing may be acknowledged before. It is already settled for a statement that committed
 * as usual; otherwise the caller can overlap it with other work (the queue add).
 */
export async function commitOnLane<T>(db: Database, execute: (db: Database, synchronousCommit: SynchronousCommit) => Promise<T>): Promise<{ result: T; durable: Promise<void> }> {
  const lane = lanes.get(db);
  if (!lane) return { result: await execute(db, 'on'), durable: Promise.resolve() };
  const joining = lane.inFlight > 0;
  lane.inFlight += 1;
  try {
    if (!joining) return { result: await execute(lane.db, 'on'), durable: Promise.resolve() };
    const result = execute(lane.db, 'off');
    // Asked for after the statement was queued, so the barrier is queued behind it.
    const durable = laneBarrier(lane);
    return { result: await result, durable };
  } finally {
    lane.inFlight -= 1;
  }
}

/**
 * Resolves once every commit made on `db`'s lane so far is on disk (or at once without a lane:
 * the pool's commits wait for their flush). For a row read back that another request may have
 * committed without its flush.
 */
export function laneFlushed(db: Database): Promise<void> {
  const lane = lanes.get(db);
  return lane ? laneBarrier(lane) : Promise.resolve();
}

function laneBarrier(lane: CommitLane): Promise<void> {
  if (lane.nextBarrier) return lane.nextBarrier;
  const barrier = new Promise<void>((resolve, reject) => {
    // After the turn's statements: they are queued on the connection before it.
    setImmediate(() => {
      lane.nextBarrier = undefined;
      lane.db.execute(sql`select pg_logical_emit_message(true, 'agentq.flush', '')`).then(() => resolve(), reject);
    });
  });
  // The callers await it; this keeps one that failed first from leaving it unhandled.
  barrier.catch(() => {});
  lane.nextBarrier = barrier;
  return barrier;
}
