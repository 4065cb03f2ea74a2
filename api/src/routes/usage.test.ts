import { llmModels, runs } from '@agentq/shared/db';
import { newId } from '@agentq/shared/ids';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let ada: Awaited<ReturnType<typeof t.signUp>>;
let bob: Awaited<ReturnType<typeof t.signUp>>;
const [fast, deep] = [newId('model'), newId('model')];

const get = (path: string, headers?: Record<string, string>) => t.app.request(path, { headers });
const query = (values: Record<string, string>) => `?${new URLSearchParams(values)}`;

type Tokens = { inputTokens?: number; outputTokens?: number; reasoningTokens?: number; totalTokens?: number };

async function insertRun(userId: string, modelId: string, at: string | Date, usage: Tokens | null, kind: 'chat' | 'tool' = 'chat', cost: number | null = null) {
  await t.db.insert(runs).values({ id: newId('run'), kind, userId, modelId, usage, cost, status: 'succeeded', createdAt: new Date(at) });
}

// The test database is shared by the files running in parallel: the runs are dated in 1988, where no
// other test writes, so everyone's usage of that window is this file's alone.
const MAY = { since: '1988-05-01T00:00:00Z', until: '1988-05-08T00:00:00Z' };

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.signUp('admin');
  ada = await t.signUp('user');
  bob = await t.signUp('user');
  await t.db.insert(llmModels).values([
    { id: fast, name: 'Fast model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'fast', createdAt: new Date('2999-01-01T00:00:00Z') },
    { id: deep, name: 'Deep model', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'deep', createdAt: new Date('2999-01-01T00:00:00Z') },
  ]);
  await insertRun(ada.user.id, fast, MAY.since, { inputTokens: 100, outputTokens: 10, totalTokens: 110 });
  // The deep model is priced (its runs have a cost), the fast one is not.
  await insertRun(ada.user.id, deep, '1988-05-01T22:30:00Z', { inputTokens: 200, outputTokens: 40, reasoningTokens: 30, totalTokens: 240 }, 'chat', 0.0012);
  await insertRun(ada.user.id, fast, '1988-05-03T09:00:00Z', { inputTokens: 1, outputTokens: 2, totalTokens: 3 });
  await insertRun(bob.user.id, deep, '1988-05-03T10:00:00Z', { inputTokens: 5000, outputTokens: 500, reasoningTokens: 100, totalTokens: 5500 }, 'chat', 0.0275);
  // Neither counts: a standalone tool execution, and a run at the window's end (exclusive).
  await insertRun(ada.user.id, fast, '1988-05-02T00:00:00Z', { inputTokens: 999, outputTokens: 999, totalTokens: 1998 }, 'tool', 9);
  await insertRun(ada.user.id, fast, MAY.until, { inputTokens: 999, outputTokens: 999, totalTokens: 1998 });
});

afterAll(async () => {
  await t.close();
});

describe('GET /api/usage', () => {
  it("answers the user's own tokens by day and by model, the most first, and nobody else's", async () => {
    const response = await get(`/api/usage${query(MAY)}`, ada.headers);
    expect(response.status).toBe(200);
    const report = await response.json();
    expect(report).toEqual({
      since: '1988-05-01T00:00:00.000Z',
      until: '1988-05-08T00:00:00.000Z',
      tz: 'UTC',
      totals: { runs: 3, inputTokens: 301, outputTokens: 52, reasoningTokens: 30, totalTokens: 353, cost: 0.0012 },
      byDay: [
        { day: '1988-05-01', runs: 2, inputTokens: 300, outputTokens: 50, reasoningTokens: 30, totalTokens: 350, cost: 0.0012 },
        { day: '1988-05-03', runs: 1, inputTokens: 1, outputTokens: 2, reasoningTokens: 0, totalTokens: 3, cost: null },
      ],
      byModel: [
        { modelId: deep, modelName: 'Deep model', runs: 1, inputTokens: 200, outputTokens: 40, reasoningTokens: 30, totalTokens: 240, cost: 0.0012 },
        { modelId: fast, modelName: 'Fast model', runs: 2, inputTokens: 101, outputTokens: 12, reasoningTokens: 0, totalTokens: 113, cost: null },
      ],
    });

    const ofBob = await (await get(`/api/usage${query(MAY)}`, bob.headers)).json();
    expect(ofBob.totals).toEqual({ runs: 1, inputTokens: 5000, outputTokens: 500, reasoningTokens: 100, totalTokens: 5500, cost: 0.0275 });
    expect(ofBob.byModel.map((row: { modelId: string }) => row.modelId)).toEqual([deep]);
  });

  it('counts the days of the time zone asked for', async () => {
    // 22:30 UTC on 1 May is 2 May in Tokyo.
    const report = await (await get(`/api/usage${query({ since: '1988-05-01T00:00:00+09:00', until: '1988-05-08T00:00:00+09:00', tz: 'Asia/Tokyo' })}`, ada.headers)).json();
    expect(report.tz).toBe('Asia/Tokyo');
    expect(report.byDay.map(({ day, totalTokens }: { day: string; totalTokens: number }) => ({ day, totalTokens }))).toEqual([
      { day: '1988-05-01', totalTokens: 110 },
      { day: '1988-05-02', totalTokens: 240 },
      { day: '1988-05-03', totalTokens: 3 },
    ]);
  });

  it('is the last 30 days when no window is given', async () => {
    const user = await t.signUp('user');
    await insertRun(user.user.id, fast, new Date(Date.now() - 29 * 24 * 60 * 60 * 1000), { inputTokens: 4, outputTokens: 3, totalTokens: 7 });
    await insertRun(user.user.id, fast, new Date(Date.now() - 31 * 24 * 60 * 60 * 1000), { inputTokens: 40, outputTokens: 30, totalTokens: 70 });
    const report = await (await get('/api/usage', user.headers)).json();
    expect(report.totals).toMatchObject({ runs: 1, totalTokens: 7 });
    expect(new Date(report.until).getTime() - new Date(report.since).getTime()).toBe(30 * 24 * 60 * 60 * 1000);
  });

  it('answers 401 without a sign-in', async () => {
    expect((await get('/api/usage')).status).toBe(401);
  });
});

describe('GET /api/admin/usage', () => {
  it("answers everyone's tokens by day, by model and by user", async () => {
    const response = await get(`/api/admin/usage${query(MAY)}`, admin.headers);
    expect(response.status).toBe(200);
    const report = await response.json();
    expect(report.totals).toEqual({ runs: 4, inputTokens: 5301, outputTokens: 552, reasoningTokens: 130, totalTokens: 5853, cost: 0.0287 });
    expect(report.byDay).toEqual([
      { day: '1988-05-01', runs: 2, inputTokens: 300, outputTokens: 50, reasoningTokens: 30, totalTokens: 350, cost: 0.0012 },
      { day: '1988-05-03', runs: 2, inputTokens: 5001, outputTokens: 502, reasoningTokens: 100, totalTokens: 5503, cost: 0.0275 },
    ]);
    expect(report.byModel).toEqual([
      { modelId: deep, modelName: 'Deep model', runs: 2, inputTokens: 5200, outputTokens: 540, reasoningTokens: 130, totalTokens: 5740, cost: 0.0287 },
      { modelId: fast, modelName: 'Fast model', runs: 2, inputTokens: 101, outputTokens: 12, reasoningTokens: 0, totalTokens: 113, cost: null },
    ]);
    expect(report.byUser).toEqual([
      { userId: bob.user.id, userName: 'Test user', userEmail: bob.email, runs: 1, inputTokens: 5000, outputTokens: 500, reasoningTokens: 100, totalTokens: 5500, cost: 0.0275 },
      { userId: ada.user.id, userName: 'Test user', userEmail: ada.email, runs: 3, inputTokens: 301, outputTokens: 52, reasoningTokens: 30, totalTokens: 353, cost: 0.0012 },
    ]);
  });

  it('keeps a deleted model by its id', async () => {
    const gone = newId('model');
    await insertRun(ada.user.id, gone, '1988-06-01T12:00:00Z', { inputTokens: 1, outputTokens: 1, totalTokens: 2 });
    const report = await (await get(`/api/admin/usage${query({ since: '1988-06-01T00:00:00Z', until: '1988-06-02T00:00:00Z' })}`, admin.headers)).json();
    expect(report.byModel).toEqual([{ modelId: gone, modelName: null, runs: 1, inputTokens: 1, outputTokens: 1, reasoningTokens: 0, totalTokens: 2, cost: null }]);
  });

  it('answers 401 without a sign-in and 403 to a user who is not an admin', async () => {
    expect((await get('/api/admin/usage')).status).toBe(401);
    expect((await get(`/api/admin/usage${query(MAY)}`, ada.headers)).status).toBe(403);
  });
});

describe('a window that is not one', () => {
  const cases: [name: string, values: Record<string, string>, path: string][] = [
    ['a start that is not a date', { since: 'last week' }, 'since'],
    ['an end that is not a date', { until: '1988-13-40' }, 'until'],
    ['a start after the end', { since: MAY.until, until: MAY.since }, 'until'],
    ['a start equal to the end', { since: MAY.since, until: MAY.since }, 'until'],
    ['more than 366 days', { since: '1987-01-01T00:00:00Z', until: '1988-01-03T00:00:00Z' }, 'since'],
    ['a time zone nobody knows', { tz: 'Atlantis/Capital' }, 'tz'],
    ['an offset instead of a zone', { tz: '+05:00' }, 'tz'],
  ];

  it.each(cases)('%s is a 400 with the issue, on both routes', async (_name, values, path) => {
    for (const [route, headers] of [['/api/usage', ada.headers], ['/api/admin/usage', admin.headers]] as const) {
      const response = await get(`${route}${query(values)}`, headers);
      expect(response.status, route).toBe(400);
      const { error } = await response.json();
      expect(error.code).toBe('validation_failed');
      expect(error.issues.map((issue: { path: string[] }) => issue.path)).toEqual([[path]]);
    }
  });
});

it('both routes are in the OpenAPI document', async () => {
  const { paths } = await (await get('/api/openapi.json')).json();
  expect(Object.keys(paths)).toEqual(expect.arrayContaining(['/usage', '/admin/usage']));
});
