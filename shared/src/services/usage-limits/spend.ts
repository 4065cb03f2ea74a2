import type { Redis } from 'ioredis';
import { USAGE_PERIODS } from '../../api-types/usage-limits';
import type { Database } from '../../db/client';
import { userChatTokens } from '../usage';
import { periodWindow, type PeriodWindow } from './periods';
import { anyUsageLimit, usageLimitSettings } from './settings';

/** Where spend counters live: the database they are rebuilt from, Redis, and the deployment's key prefix. */
export type SpendDeps = { db: Database; redis: Redis; prefix: string };

/** A counter outlives its period by this much: a run created before the end and ending after still adds to it. */
const KEPT_AFTER_END_MS = 2 * 24 * 60 * 60 * 1000;

/** One user's tokens in one period: the chat runs created in it (as the usage report dates them). */
const counterKey = (prefix: string, userId: string, window: PeriodWindow) => `${prefix}:usage-spend:${userId}:${window.period}:${window.id}`;

/**
 * Tokens a user spent in each window: one MGET for all of them; a counter Redis does not hold (the
 * first check since limits were set, or Redis lost its data) is rebuilt from PostgreSQL's runs.
 */
export async function readSpend(deps: SpendDeps, userId: string, windows: PeriodWindow[], now: Date): Promise<number[]> {
  const keys = windows.map((window) => counterKey(deps.prefix, userId, window));
  const values = await deps.redis.mget(...keys);
  return Promise.all(values.map((value, index) => (value !== null ? Number(value) : rebuild(deps, userId, windows[index]!, keys[index]!, now))));
}

/**
 * Sums the period's runs and stores the counter unless another process did first. A run whose end
 * falls between the sum and the SET can be counted twice or not at all (its end adds to the counter
 * only once it exists): off by one run, only while a counter is being made.
 */
async function rebuild(deps: SpendDeps, userId: string, window: PeriodWindow, key: string, now: Date): Promise<number> {
  const spent = await userChatTokens(deps.db, userId, window.start, window.end);
  const ttlMs = Math.max(1_000, window.end.getTime() + KEPT_AFTER_END_MS - now.getTime());
  // A counter another process made meanwhile (and runs' ends may have added to since) stands.
  return Number(await deps.redis.eval(SET_UNLESS_KEPT, 1, key, spent, ttlMs));
}

// SET NX, else the kept value: one call (SET's NX with GET needs Redis 7).
const SET_UNLESS_KEPT = `if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return ARGV[1] end return redis.call('GET', KEYS[1])`;

// Only counters that exist: one made by an add would lack the period's earlier runs. A missing one is
// rebuilt from PostgreSQL, which holds this run's usage already.
const ADD_TO_KEPT = `for _, key in ipairs(KEYS) do if redis.call('EXISTS', key) == 1 then redis.call('INCRBY', key, ARGV[1]) end end return 0`;

/** A run's tokens as the usage report counts them: its total, else what went in and came out. */
export function runTokens(usage: { totalTokens?: number; inputTokens?: number; outputTokens?: number } | null | undefined): number {
  if (!usage) return 0;
  if (typeof usage.totalTokens === 'number') return usage.totalTokens;
  return (typeof usage.inputTokens === 'number' ? usage.inputTokens : 0) + (typeof usage.outputTokens === 'number' ? usage.outputTokens : 0);
}

/**
 * Adds an ended run's tokens to its user's counters (the periods its creation falls in). Without any
 * limit set this is a cached lookup: no Redis call. One script call otherwise, whoever the user is.
 */
export async function recordRunSpend(deps: SpendDeps, run: { userId: string; createdAt: Date | string }, tokens: number): Promise<void> {
  if (tokens <= 0 || !anyUsageLimit(await usageLimitSettings(deps.db))) return;
  const keys = USAGE_PERIODS.map((period) => counterKey(deps.prefix, run.userId, periodWindow(period, new Date(run.createdAt))));
  await deps.redis.eval(ADD_TO_KEPT, keys.length, ...keys, tokens);
}

/** The Redis keys of a user's counters at `at` (tests delete them to prove the rebuild). */
export function spendCounterKeys(prefix: string, userId: string, at: Date): string[] {
  return USAGE_PERIODS.map((period) => counterKey(prefix, userId, periodWindow(period, at)));
}
