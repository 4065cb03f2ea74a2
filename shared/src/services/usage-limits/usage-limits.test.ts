import { drizzle } from 'drizzle-orm/postgres-js';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database, DbHandle } from '../../db/client';
import * as schema from '../../db/schema';
import { runs, userUsageLimits } from '../../db/schema';
import { newId } from '../../ids';
import { openPrivateTestDb, randomPrefix, testRedisUrl, uniqueEmail } from '../../testing';
import { startConfigCache } from '../config-cache';
import { createUser } from '../users';
import { assertWithinUsageLimit, recordRunSpend, setUsageLimitDefaults, setUserUsageLimits, spendCounterKeys, usageLimitStatus, UsageLimitReachedError, type UsageGuardDeps } from './index';

// Default limits apply to every user of a database: this file has one of its own.
let database: DbHandle & { url: string };
let redis: Redis;
let prefix: string;
let clock: Date;
const deps = (): UsageGuardDeps => ({ db: database.db, redis, prefix, now: () => clock });

const newUser = async (role: 'admin' | 'user' = 'user') => {
  const user = await createUser(database.db, { email: uniqueEmail(role), name: role, password: 'correct horse battery', role });
  return { id: user.id, isAdmin: role === 'admin' };
};

/** A chat run that spent `tokens`, created at `at` (stored the way the worker stores usage). */
async function spend(userId: string, at: Date, tokens: number, options: { count?: boolean } = {}) {
  const run = { id: newId('run'), kind: 'chat' as const, userId, usage: { inputTokens: tokens - 1, outputTokens: 1, totalTokens: tokens }, status: 'succeeded' as const, createdAt: at };
  await database.db.insert(runs).values(run);
  // What the worker does at the run's end.
  if (options.count !== false) await recordRunSpend(deps(), run, tokens);
}

const refusal = async (user: { id: string; isAdmin?: boolean }) => {
  try {
    await assertWithinUsageLimit(deps(), user);
    return null;
  } catch (error) {
    if (error instanceof UsageLimitReachedError) return error;
    throw error;
  }
};

beforeAll(async () => {
  database = await openPrivateTestDb();
  redis = new Redis(testRedisUrl());
});
afterAll(async () => {
  redis.disconnect();
  await database.close();
});
beforeEach(async () => {
  prefix = randomPrefix('limits');
  clock = new Date('2026-03-10T12:00:00Z');
  await setUsageLimitDefaults(database.db, { perDay: null, perMonth: null });
  await database.db.delete(userUsageLimits);
});

describe('usage limits', () => {
  it('without a limit a check reads only the cached settings: no statement and no Redis call, and a new limit reaches every process', async () => {
    // A process of its own whose database handle records every statement, with its config cache.
    const client = postgres(database.url, { max: 2, onnotice: () => {} });
    let statements = 0;
    const recording = drizzle({ client, schema, logger: { logQuery: () => void statements++ } }) as unknown as Database;
    const [publisher, subscriber, counted] = [new Redis(testRedisUrl()), new Redis(testRedisUrl()), new Redis(testRedisUrl())];
    const { close } = await startConfigCache(recording, { publisher, subscriber, prefix });
    const redisCalls = vi.spyOn(counted, 'sendCommand');
    try {
      const [user, admin] = [await newUser(), await newUser('admin')];
      const processDeps = { db: recording, redis: counted, prefix, now: () => clock };
      await assertWithinUsageLimit(processDeps, user); // loads the settings once
      statements = 0;
      redisCalls.mockClear();
      for (let send = 0; send < 20; send++) {
        await assertWithinUsageLimit(processDeps, user);
        await assertWithinUsageLimit(processDeps, admin);
        // The worker's side at a run's end: nothing to count either.
        await recordRunSpend(processDeps, { userId: user.id, createdAt: clock }, 500);
      }
      expect(statements).toBe(0);
      expect(redisCalls).not.toHaveBeenCalled();

      // An admin elsewhere sets a default (another process's handle publishes the invalidation).
      await setUsageLimitDefaults(database.db, { perDay: 100, perMonth: null });
      await publisher.publish(`${prefix}:config-invalidate`, 'usage-limits');
      await expect.poll(() => usageLimitStatus(processDeps, user), { timeout: 5_000 }).toEqual([{ period: 'day', limit: 100, spent: 0, resetsAt: '2026-03-11T00:00:00.000Z' }]);
      expect(redisCalls).toHaveBeenCalled();
      // Admins are not held to the default.
      expect(await usageLimitStatus(processDeps, admin)).toEqual([]);
    } finally {
      await close();
      for (const connection of [publisher, subscriber, counted]) connection.disconnect();
      await client.end();
    }
  });

  it('refuses a send once the spend reaches the limit, saying the limit, the spend and when it resets; under it passes', async () => {
    const user = await newUser();
    await setUsageLimitDefaults(database.db, { perDay: 100, perMonth: 1000 });
    await spend(user.id, new Date('2026-03-10T08:00:00Z'), 60, { count: false }); // before the counter exists: rebuilt from PostgreSQL
    await spend(user.id, new Date('2026-03-09T08:00:00Z'), 500, { count: false }); // yesterday: this month only
    expect(await refusal(user)).toBeNull();
    expect(await usageLimitStatus(deps(), user)).toEqual([
      { period: 'day', limit: 100, spent: 60, resetsAt: '2026-03-11T00:00:00.000Z' },
      { period: 'month', limit: 1000, spent: 560, resetsAt: '2026-04-01T00:00:00.000Z' },
    ]);
    await spend(user.id, new Date('2026-03-10T09:00:00Z'), 40);
    const refused = await refusal(user);
    expect(refused?.status).toEqual({ period: 'day', limit: 100, spent: 100, resetsAt: '2026-03-11T00:00:00.000Z' });
    expect(refused?.message).toBe('You have used 100 of your 100 tokens today; you can send again after 2026-03-11T00:00:00.000Z');
    // Both reached: the month's holds longer, so it is the one named.
    await spend(user.id, new Date('2026-03-10T10:00:00Z'), 500);
    expect((await refusal(user))?.status).toMatchObject({ period: 'month', spent: 1100, resetsAt: '2026-04-01T00:00:00.000Z' });
  });

  it("a user's override beats the default, 'unlimited' lifts it, and admins are held only by an override", async () => {
    const [user, other, admin] = [await newUser(), await newUser(), await newUser('admin')];
    await setUsageLimitDefaults(database.db, { perDay: 100, perMonth: null });
    for (const who of [user, other, admin]) await spend(who.id, clock, 150, { count: false });
    expect((await refusal(other))?.status.limit).toBe(100);
    expect(await refusal(admin)).toBeNull();

    await setUserUsageLimits(database.db, user.id, { perDay: 200, perMonth: 'default' });
    expect(await refusal(user)).toBeNull();
    expect(await usageLimitStatus(deps(), user)).toEqual([{ period: 'day', limit: 200, spent: 150, resetsAt: '2026-03-11T00:00:00.000Z' }]);
    await setUserUsageLimits(database.db, user.id, { perDay: 120, perMonth: 'default' });
    expect((await refusal(user))?.status).toMatchObject({ limit: 120, spent: 150 });
    await setUserUsageLimits(database.db, user.id, { perDay: 'unlimited', perMonth: 'default' });
    expect(await refusal(user)).toBeNull();
    expect(await usageLimitStatus(deps(), user)).toEqual([]);
    // Back to the default.
    await setUserUsageLimits(database.db, user.id, { perDay: 'default', perMonth: 'default' });
    expect((await refusal(user))?.status.limit).toBe(100);

    await setUserUsageLimits(database.db, admin.id, { perDay: 'default', perMonth: 100 });
    expect((await refusal(admin))?.status).toMatchObject({ period: 'month', limit: 100, spent: 150 });
  });

  it('rebuilds a counter Redis lost from the runs in PostgreSQL', async () => {
    const user = await newUser();
    await setUsageLimitDefaults(database.db, { perDay: 1000, perMonth: null });
    await spend(user.id, clock, 300, { count: false });
    expect(await usageLimitStatus(deps(), user)).toMatchObject([{ spent: 300 }]);
    await spend(user.id, clock, 200);
    expect(await usageLimitStatus(deps(), user)).toMatchObject([{ spent: 500 }]);
    // Redis lost its data: the next check counts the runs again, and the counter goes on from there.
    await redis.del(...spendCounterKeys(prefix, user.id, clock));
    expect(await usageLimitStatus(deps(), user)).toMatchObject([{ spent: 500 }]);
    expect(await redis.get(spendCounterKeys(prefix, user.id, clock)[0]!)).toBe('500');
    // The counter expires after its period (with a margin for runs ending after it).
    const ttl = await redis.pttl(spendCounterKeys(prefix, user.id, clock)[0]!);
    expect(ttl).toBeGreaterThan(Date.parse('2026-03-11T00:00:00Z') - clock.getTime());
    await spend(user.id, clock, 600);
    expect((await refusal(user))?.status).toMatchObject({ spent: 1100 });
    // A run's end never makes a counter by itself (it would lack the period's earlier runs).
    await redis.del(...spendCounterKeys(prefix, user.id, clock));
    await recordRunSpend(deps(), { userId: user.id, createdAt: clock }, 5);
    expect(await redis.exists(...spendCounterKeys(prefix, user.id, clock))).toBe(0);
  });

  it('a new UTC day starts from zero while the month counts on, and a new month starts both again', async () => {
    const user = await newUser();
    await setUsageLimitDefaults(database.db, { perDay: 100, perMonth: 250 });
    clock = new Date('2026-03-30T23:59:59Z');
    await spend(user.id, clock, 100);
    expect((await refusal(user))?.status).toMatchObject({ period: 'day', spent: 100, resetsAt: '2026-03-31T00:00:00.000Z' });
    clock = new Date('2026-03-31T00:00:01Z');
    expect(await refusal(user)).toBeNull();
    await spend(user.id, clock, 150);
    expect((await refusal(user))?.status).toMatchObject({ period: 'month', limit: 250, spent: 250, resetsAt: '2026-04-01T00:00:00.000Z' });
    clock = new Date('2026-04-01T00:00:00Z');
    expect(await usageLimitStatus(deps(), user)).toEqual([
      { period: 'day', limit: 100, spent: 0, resetsAt: '2026-04-02T00:00:00.000Z' },
      { period: 'month', limit: 250, spent: 0, resetsAt: '2026-05-01T00:00:00.000Z' },
    ]);
  });
});
