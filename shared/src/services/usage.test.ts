import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../db/client';
import { llmModels, runs, users } from '../db/schema';
import { newId } from '../ids';
import { bothTestDatabases } from '../testing';
import { usageQuerySchema, usageReport, userUsageReport } from './usage';

// The test database is shared by the files running in parallel: these runs are dated in 1987,
// where no other test writes, so everyone's report of that window is this file's alone.
const window = (query: Parameters<typeof usageQuerySchema.parse>[0]) => usageQuerySchema.parse(query);

describe.each(bothTestDatabases)('token usage on %s', (_name, open) => {
  let database: DbHandle;
  const [ada, bob] = [newId('user'), newId('user')];
  const [modelA, deletedModel] = [newId('model'), newId('model')];

  beforeAll(async () => {
    database = await open();
    await database.db.insert(users).values([
      { id: ada, email: `${ada}@test.local`, name: 'Ada', passwordHash: 'x', role: 'user' },
      { id: bob, email: `${bob}@test.local`, name: 'Bob', passwordHash: 'x', role: 'user' },
    ]);
    await database.db.insert(llmModels).values({ id: modelA, name: 'Model A', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm' });
    const run = (userId: string, modelId: string, at: string, usage: Record<string, unknown> | null, kind: 'chat' | 'tool' = 'chat', cost: number | null = null) =>
      ({ id: newId('run'), kind, userId, modelId, usage, cost, status: 'succeeded' as const, createdAt: new Date(at) });
    await database.db.insert(runs).values([
      // The window's first instant counts; in Shanghai (UTC+8) it is already 3 March.
      // Priced runs carry a cost (to 8 decimals); the others none.
      run(ada, modelA, '1987-03-02T16:00:00Z', { inputTokens: 100, outputTokens: 20, reasoningTokens: 5, totalTokens: 120 }, 'chat', 0.00012345),
      // No total reported: what went in and came out.
      run(ada, modelA, '1987-03-03T10:00:00Z', { inputTokens: 7, outputTokens: 3 }, 'chat', 0.00000001),
      // A run of a model deleted since, and one that reported nothing (stopped before its first step).
      run(ada, deletedModel, '1987-03-03T16:00:00Z', { inputTokens: 1000, outputTokens: 1, totalTokens: 1001 }),
      run(ada, modelA, '1987-03-04T12:00:00Z', null),
      run(bob, modelA, '1987-03-04T12:00:00Z', { inputTokens: 50, outputTokens: 50, totalTokens: 100 }, 'chat', 0.5),
      // Not counted: a tool execution, and a run at the window's (exclusive) end.
      run(ada, modelA, '1987-03-04T13:00:00Z', { inputTokens: 9999, outputTokens: 9999, totalTokens: 19998 }, 'tool'),
      run(ada, modelA, '1987-03-05T16:00:00Z', { inputTokens: 9999, outputTokens: 9999, totalTokens: 19998 }),
    ]);
  }, 240_000);
  afterAll(() => database.close());

  const MARCH = { since: '1987-03-03T00:00:00+08:00', until: '1987-03-06T00:00:00+08:00', tz: 'Asia/Shanghai' };

  it("sums one user's chat runs by day in their time zone and by model, a deleted model by its id", async () => {
    const report = await userUsageReport(database.db, ada, window(MARCH));
    expect(report).toMatchObject({ since: '1987-03-02T16:00:00.000Z', until: '1987-03-05T16:00:00.000Z', tz: 'Asia/Shanghai' });
    expect(report.totals).toEqual({ runs: 4, inputTokens: 1107, outputTokens: 24, reasoningTokens: 5, totalTokens: 1131, cost: 0.00012346 });
    expect(report.byDay).toEqual([
      { day: '1987-03-03', runs: 2, inputTokens: 107, outputTokens: 23, reasoningTokens: 5, totalTokens: 130, cost: 0.00012346 },
      { day: '1987-03-04', runs: 2, inputTokens: 1000, outputTokens: 1, reasoningTokens: 0, totalTokens: 1001, cost: null },
    ]);
    expect(report.byModel).toEqual([
      { modelId: deletedModel, modelName: null, runs: 1, inputTokens: 1000, outputTokens: 1, reasoningTokens: 0, totalTokens: 1001, cost: null },
      { modelId: modelA, modelName: 'Model A', runs: 3, inputTokens: 107, outputTokens: 23, reasoningTokens: 5, totalTokens: 130, cost: 0.00012346 },
    ]);
  });

  it("counts UTC days unless told a zone, and everyone's runs by user", async () => {
    const report = await usageReport(database.db, window({ since: '1987-03-01T00:00:00Z', until: '1987-03-05T16:00:00Z' }));
    expect(report.tz).toBe('UTC');
    expect(report.byDay.map(({ day, runs }) => ({ day, runs }))).toEqual([
      { day: '1987-03-02', runs: 1 },
      { day: '1987-03-03', runs: 2 },
      { day: '1987-03-04', runs: 2 },
    ]);
    expect(report.totals).toMatchObject({ runs: 5, totalTokens: 1231 });
    expect(report.byUser).toEqual([
      { userId: ada, userName: 'Ada', userEmail: `${ada}@test.local`, runs: 4, inputTokens: 1107, outputTokens: 24, reasoningTokens: 5, totalTokens: 1131, cost: 0.00012346 },
      { userId: bob, userName: 'Bob', userEmail: `${bob}@test.local`, runs: 1, inputTokens: 50, outputTokens: 50, reasoningTokens: 0, totalTokens: 100, cost: 0.5 },
    ]);
  });

  it('reports an empty window as zeros', async () => {
    const report = await usageReport(database.db, window({ since: '1986-01-01T00:00:00Z', until: '1986-02-01T00:00:00Z' }));
    expect(report).toMatchObject({ totals: { runs: 0, inputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0, cost: null }, byDay: [], byModel: [], byUser: [] });
  });
});

describe('the usage window', () => {
  it('is the last 30 days up to now by default, or the 30 days before a given end', () => {
    const before = Date.now();
    const { since, until, tz } = usageQuerySchema.parse({});
    expect(until.getTime()).toBeGreaterThanOrEqual(before);
    expect(until.getTime() - since.getTime()).toBe(30 * 24 * 60 * 60 * 1000);
    expect(tz).toBe('UTC');
    expect(usageQuerySchema.parse({ until: '2026-12-31T00:00:00Z' }).since.toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it('refuses a window backwards, longer than 366 days, dates that are not, and zones that are not IANA names', () => {
    const issue = (query: Record<string, string>) => usageQuerySchema.safeParse(query).error?.issues.map(({ path, message }) => ({ path, message }));
    expect(issue({ since: '2026-12-08T00:00:00Z', until: '2026-12-01T00:00:00Z' })).toEqual([{ path: ['until'], message: 'The start (since) must be before the end (until)' }]);
    expect(issue({ since: '2026-12-01T00:00:00Z', until: '2026-12-01T00:00:00Z' })?.[0]?.path).toEqual(['until']);
    expect(issue({ since: '2025-01-01T00:00:00Z', until: '2026-01-02T00:00:01Z' })).toEqual([{ path: ['since'], message: 'Ask for at most 366 days at a time' }]);
    expect(issue({ since: '2025-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' })).toBeUndefined();
    expect(issue({ since: 'yesterday' })?.[0]?.path).toEqual(['since']);
    expect(issue({ tz: 'Mars/Olympus_Mons' })?.[0]?.path).toEqual(['tz']);
    // An offset would be read west of Greenwich by PostgreSQL: names only.
    expect(issue({ tz: '+05:00' })?.[0]?.path).toEqual(['tz']);
    expect(issue({ tz: "UTC'; drop table runs; --" })?.[0]?.path).toEqual(['tz']);
    expect(usageQuerySchema.parse({ tz: 'europe/berlin' }).tz).toBe('Europe/Berlin');
  });
});
