import { describe, expect, it } from 'vitest';
import type { Database } from './client';
import { attachCommitLane, commitOnLane, laneFlushed, type SynchronousCommit } from './commit-lane';

/**
 * The lane's bookkeeping, on a database whose statements finish when the test says so. The real
 * thing (a PostgreSQL crash right after) is infra/chaos/enqueue-durability.test.ts.
 */
function laneDatabase() {
  const barriers: { finish: () => void; fail: (error: Error) => void }[] = [];
  const lane = {
    execute: () => new Promise<void>((finish, fail) => barriers.push({ finish, fail })),
  } as unknown as Database;
  const db = {} as Database;
  attachCommitLane(db, lane);
  return { db, lane, barriers };
}

function statement() {
  let finish!: (rows: string[]) => void;
  const modes: SynchronousCommit[] = [];
  const rows = new Promise<string[]>((resolve) => (finish = resolve));
  return { execute: (_db: Database, mode: SynchronousCommit) => (modes.push(mode), rows), finish, modes };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const isSettled = async (promise: Promise<unknown>) => {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await turn();
  return settled;
};

describe('commit lane', () => {
  it('commits a statement alone on the lane as usual, with no barrier', async () => {
    const { db, barriers } = laneDatabase();
    const alone = statement();
    const started = commitOnLane(db, alone.execute);
    alone.finish(['run 1']);
    const { result, durable } = await started;
    expect(result).toEqual(['run 1']);
    expect(alone.modes).toEqual(['on']);
    expect(await isSettled(durable)).toBe(true);
    expect(barriers).toHaveLength(0);
  });

  it('lets statements joining one in flight commit without their flush, and makes them durable with one barrier queued behind them', async () => {
    const { db, barriers } = laneDatabase();
    const [first, second, third] = [statement(), statement(), statement()];
    const started = [commitOnLane(db, first.execute), commitOnLane(db, second.execute), commitOnLane(db, third.execute)];
    expect([first.modes, second.modes, third.modes]).toEqual([['on'], ['off'], ['off']]);
    await turn();
    // One barrier for the turn, sent after both joiners' statements.
    expect(barriers).toHaveLength(1);
    first.finish(['run 1']);
    second.finish(['run 2']);
    third.finish(['run 3']);
    const [one, two, three] = await Promise.all(started);
    expect(await isSettled(one!.durable)).toBe(true);
    expect(await isSettled(Promise.race([two!.durable, three!.durable]))).toBe(false);
    barriers[0]!.finish();
    await Promise.all([two!.durable, three!.durable]);
    // The lane is idle again: the next statement commits as usual.
    const later = statement();
    const next = commitOnLane(db, later.execute);
    later.finish(['run 4']);
    await next;
    expect(later.modes).toEqual(['on']);
  });

  it('fails the joiners whose barrier failed; a row read back waits for a barrier of its own', async () => {
    const { db, barriers } = laneDatabase();
    const [first, second] = [statement(), statement()];
    const started = [commitOnLane(db, first.execute), commitOnLane(db, second.execute)];
    first.finish(['run 1']);
    second.finish(['run 2']);
    const [, joined] = await Promise.all(started);
    await turn();
    barriers[0]!.fail(new Error('connection lost'));
    await expect(joined!.durable).rejects.toThrow('connection lost');
    const readBack = laneFlushed(db);
    await turn();
    expect(barriers).toHaveLength(2);
    barriers[1]!.finish();
    await expect(readBack).resolves.toBeUndefined();
  });

  it('commits as usual on a database without a lane (PGlite, a transaction)', async () => {
    const alone = statement();
    const started = commitOnLane({} as Database, alone.execute);
    alone.finish(['run 1']);
    const { durable } = await started;
    expect(alone.modes).toEqual(['on']);
    expect(await isSettled(durable)).toBe(true);
    expect(await isSettled(laneFlushed({} as Database))).toBe(true);
  });
});
