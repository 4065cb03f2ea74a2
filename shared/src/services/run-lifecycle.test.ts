import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../db/client';
import { RUN_STATUSES, runs } from '../db/schema';
import { openTestDb, uniqueEmail } from '../testing';
import { canTransition, isRunCancelled, markRunRunning, RUN_TRANSITIONS, sourcesOf, sourcesThrough, toRunErrorText, transitionRun } from './run-lifecycle';
import { createToolRun } from './runs';
import { createUser } from './users';

let database: DbHandle;
let userId: string;

beforeAll(async () => {
  database = await openTestDb();
  userId = (await createUser(database.db, { email: uniqueEmail('lifecycle'), name: 'Lifecycle', password: 'password-123', role: 'user' })).id;
});

afterAll(async () => {
  await database?.close();
});

async function newRun() {
  return createToolRun(database.db, { userId, toolId: 'tool_x', input: {} });
}

describe('the run status table', () => {
  it('covers every status; terminal ones lead nowhere except a cancelled run settling', () => {
    expect(Object.keys(RUN_TRANSITIONS).sort()).toEqual([...RUN_STATUSES].sort());
    expect(RUN_TRANSITIONS.succeeded).toEqual([]);
    expect(RUN_TRANSITIONS.failed).toEqual([]);
    expect(canTransition('cancelled', 'succeeded')).toBe(false);
    expect(canTransition('awaiting_approval', 'succeeded')).toBe(false);
    expect(sourcesOf('awaiting_approval')).toEqual(['running']);
  });

  it('allows two moves at once only where the table allows each: an unclaimed run ends from queued, never from an end', () => {
    expect(sourcesOf('succeeded')).toEqual(['running']);
    expect(sourcesThrough('running', 'succeeded')).toEqual(['queued', 'running', 'awaiting_approval']);
    expect(sourcesThrough('running', 'failed')).toEqual(['queued', 'running', 'awaiting_approval']);
    expect(sourcesThrough('awaiting_approval', 'succeeded')).toEqual(['running']);
  });

  it('walks queued → running → awaiting_approval → running → succeeded, stamping start and finish', async () => {
    const run = await newRun();
    expect(await markRunRunning(database.db, run.id)).toBe(true);
    const parked = await transitionRun(database.db, run.id, 'awaiting_approval');
    expect(parked).toMatchObject({ ok: true, run: { status: 'awaiting_approval', finishedAt: null } });
    const startedAt = parked.ok ? parked.run.startedAt : null;
    expect(startedAt).toBeInstanceOf(Date);
    const resumed = await transitionRun(database.db, run.id, 'running');
    // The first start is kept across resumes.
    expect(resumed.ok && resumed.run.startedAt?.getTime()).toBe(startedAt!.getTime());
    const done = await transitionRun(database.db, run.id, 'succeeded', { finishReason: 'stop', steps: 2 });
    expect(done).toMatchObject({ ok: true, run: { status: 'succeeded', finishReason: 'stop', steps: 2 } });
    expect(done.ok && done.run.finishedAt).toBeInstanceOf(Date);
  });

  it('refuses a move the table does not allow, as a value naming the current status', async () => {
    const run = await newRun();
    expect(await transitionRun(database.db, run.id, 'awaiting_approval')).toEqual({ ok: false, reason: 'not-allowed', status: 'queued' });
    await transitionRun(database.db, run.id, 'cancelled', { finishReason: 'cancelled' });
    // A worker finishing after the cancel cannot turn it into a success, and cannot start it again.
    expect(await transitionRun(database.db, run.id, 'succeeded')).toEqual({ ok: false, reason: 'not-allowed', status: 'cancelled' });
    expect(await markRunRunning(database.db, run.id)).toBe(false);
    expect(await isRunCancelled(database.db, run.id)).toBe(true);
    // …but it may settle the cancelled run with its partial progress.
    expect(await transitionRun(database.db, run.id, 'cancelled', { steps: 3 })).toMatchObject({ ok: true, run: { status: 'cancelled', steps: 3 } });
    expect(await transitionRun(database.db, 'run_missing', 'running')).toEqual({ ok: false, reason: 'not-found' });
  });

  it('stamps every claim with its own time (the claim is a prepared statement, built once)', async () => {
    const first = await newRun();
    await markRunRunning(database.db, first.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await newRun();
    const before = new Date();
    const claimed = await transitionRun(database.db, second.id, 'running');
    // updated_at is the run's lease: a stale one would let the reconciler re-queue a running run.
    expect(claimed.ok && claimed.run.updatedAt.getTime()).toBeGreaterThanOrEqual(before.getTime() - 5);
    expect(claimed.ok && claimed.run.startedAt).toBeInstanceOf(Date);
  });

  it('only one of two racing writers wins', async () => {
    const run = await newRun();
    await markRunRunning(database.db, run.id);
    const [cancel, succeed] = await Promise.all([transitionRun(database.db, run.id, 'cancelled'), transitionRun(database.db, run.id, 'succeeded')]);
    expect([cancel.ok, succeed.ok].filter(Boolean)).toHaveLength(1);
    const [row] = await database.db.select().from(runs).where(eq(runs.id, run.id));
    expect(row!.status).toBe(cancel.ok ? 'cancelled' : 'succeeded');
  });
});

describe('toRunErrorText', () => {
  it('never stores SQL or parameters', async () => {
    const failure = await database.db.select().from(runs).where(eq(runs.id, 'x'.repeat(3))).then(() => database.db.execute(sql`select * from no_such_table where id = ${'secret-param'}`)).catch((error: unknown) => error);
    const text = toRunErrorText(failure);
    expect(text).not.toMatch(/select|no_such_table where|params|secret-param/i);
    expect(text).toMatch(/no_such_table/);
    expect(toRunErrorText(new Error('Failed query: update "runs" set "status" = $1\nparams: secret'))).toBe('The run hit a database error');
    expect(toRunErrorText(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toMatch(/unavailable/);
    expect(toRunErrorText(new Error('The model returned no content'))).toBe('The model returned no content');
  });
});
