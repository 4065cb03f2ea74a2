import { auditEvents, chatSessions, messages, runs } from '@agentq/shared/db';
import { recordRunSpend, setUserUsageLimits } from '@agentq/shared/services';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, insertBackgroundModel } from '../testing';

// Default limits hold for every user of a database: this file has a database of its own.
let t: Awaited<ReturnType<typeof createTestApp>>;
let admin: Awaited<ReturnType<typeof t.signUp>>;
let modelId: string;

const statements: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ privateDatabase: true, configCache: true, onStatement: (statement) => statements.push(statement) });
  admin = await t.signUp('admin');
  modelId = await insertBackgroundModel(t.db, 'Limits model');
});
afterAll(() => t.close());

type Account = { headers: Record<string, string> };
const request = (method: string, path: string, account: Account, body?: unknown) =>
  t.app.request(path, { method, headers: account.headers, body: body === undefined ? undefined : JSON.stringify(body) });

async function newChat(account: Account) {
  const response = await request('POST', '/api/sessions', account, {});
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** Stands in for the worker: the run ends having spent `tokens`, which go to its user's counters. */
async function finish(runId: string, tokens: number) {
  const [run] = await t.db.update(runs).set({ status: 'succeeded', finishedAt: new Date(), usage: { inputTokens: tokens, outputTokens: 0, totalTokens: tokens } }).where(eq(runs.id, runId)).returning();
  await recordRunSpend({ db: t.db, redis: t.redis, prefix: t.queues.prefix }, run!, tokens);
}

const setDefaults = async (body: unknown) => request('PUT', '/api/admin/usage-limits', admin, body);
const countOf = async (table: typeof runs | typeof messages | typeof chatSessions) => {
  const [row] = await t.db.select({ n: count() }).from(table);
  return row!.n;
};

describe('usage limits over HTTP', () => {
  it('a send under the limit is accepted (202); at the limit it is refused with 429 usage_limit, Retry-After and nothing stored (a retried send still gets its run)', async () => {
    const user = await t.signUp('user');
    expect((await setDefaults({ perDay: 100, perMonth: null })).status).toBe(200);
    const chat = await newChat(user);
    const first = await t.app.request(`/api/sessions/${chat}/runs`, { method: 'POST', headers: { ...user.headers, 'idempotency-key': 'first-send' }, body: JSON.stringify({ content: 'first' }) });
    expect(first.status).toBe(202);
    const { runId } = (await first.json()) as { runId: string };
    await finish(runId, 150);
    expect(await (await request('GET', '/api/usage/limits', user)).json()).toEqual({
      limits: [{ period: 'day', limit: 100, spent: 150, resetsAt: expect.stringMatching(/T00:00:00\.000Z$/) }],
    });

    const before = await Promise.all([countOf(runs), countOf(messages), countOf(chatSessions)]);
    const refused = await request('POST', `/api/sessions/${chat}/runs`, user, { content: 'second' });
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(body.error).toEqual({
      code: 'usage_limit',
      message: expect.stringMatching(/^You have used 150 of your 100 tokens today; you can send again after \d{4}-\d\d-\d\dT00:00:00\.000Z$/),
      details: { period: 'day', limit: 100, spent: 150, resetsAt: expect.any(String) },
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(24 * 60 * 60);
    // Regenerate, edit, a streamed send and a schedule's Run now are refused the same way.
    const [question] = await t.db.select().from(messages).where(eq(messages.runId, runId));
    expect((await request('POST', `/api/sessions/${chat}/messages/${question!.id}/regenerate`, user, {})).status).toBe(429);
    expect((await request('POST', `/api/sessions/${chat}/messages/${question!.id}/edit`, user, { content: 'edited' })).status).toBe(429);
    const streamed = await t.app.request(`/api/sessions/${chat}/runs`, { method: 'POST', headers: { ...user.headers, accept: 'text/event-stream' }, body: JSON.stringify({ content: 'streamed' }) });
    expect(streamed.status).toBe(429);
    const schedule = await (await request('POST', '/api/schedules', user, { name: 'Brief', prompt: 'news', cron: '0 9 * * *', modelId, target: 'new-chat', enabled: false })).json();
    const runNow = await request('POST', `/api/schedules/${schedule.id}/run`, user);
    expect(runNow.status).toBe(429);
    expect(((await runNow.json()) as { error: { code: string } }).error.code).toBe('usage_limit');
    expect(await Promise.all([countOf(runs), countOf(messages), countOf(chatSessions)])).toEqual(before);
    // A retry of the first send (its Idempotency-Key) still answers the run it started.
    const retried = await t.app.request(`/api/sessions/${chat}/runs`, { method: 'POST', headers: { ...user.headers, 'idempotency-key': 'first-send' }, body: JSON.stringify({ content: 'first' }) });
    expect(retried.status).toBe(202);
    expect(((await retried.json()) as { runId: string }).runId).toBe(runId);
    expect(await t.queues.chatTurns.count()).toBe(1);

    // Admins are not held to the default; an "unlimited" override lifts it for the user.
    const adminChat = await newChat(admin);
    expect((await request('POST', `/api/sessions/${adminChat}/runs`, admin, { content: 'admin' })).status).toBe(202);
    expect((await request('PUT', `/api/users/${user.user.id}/usage-limits`, admin, { perDay: 'unlimited', perMonth: 'default' })).status).toBe(200);
    expect((await request('POST', `/api/sessions/${chat}/runs`, user, { content: 'again' })).status).toBe(202);
    expect(await (await request('GET', '/api/usage/limits', user)).json()).toEqual({ limits: [] });
  });

  it('a send without a limit costs no statement and no Redis call of its own; with one, a single MGET', async () => {
    expect((await setDefaults({ perDay: null, perMonth: null })).status).toBe(200);
    const user = await t.signUp('user');
    const redisCommands: string[] = [];
    const sendCommand = t.redis.sendCommand.bind(t.redis);
    const spy = vi.spyOn(t.redis, 'sendCommand').mockImplementation(((command: { name: string }, ...rest: unknown[]) => {
      redisCommands.push(command.name);
      return (sendCommand as (...args: unknown[]) => unknown)(command, ...rest);
    }) as never);
    /** One first question in a new chat, measured alone (as group-access-cost.test.ts does). */
    const firstQuestion = async () => {
      const chat = await newChat(user);
      statements.length = 0;
      redisCommands.length = 0;
      expect((await request('POST', `/api/sessions/${chat}/runs`, user, { content: 'measured' })).status).toBe(202);
      // The queue add may follow the 202: let what the send set off finish.
      await new Promise((resolve) => setTimeout(resolve, 250));
      return { statements: statements.map((statement) => statement.slice(0, 60)), redisCommands: [...redisCommands] };
    };
    try {
      await firstQuestion(); // warms the caches: the session cookie, the config snapshot, the limit settings
      // The run, its question and the chat's title in one statement, then the queue add: nothing more.
      expect(await firstQuestion()).toEqual({ statements: [expect.stringMatching(/^with "created_run" as \(insert into "runs"/)], redisCommands: ['evalsha'] });

      // With a limit, the send reads its counter (one MGET; made from the runs the first time).
      await setUserUsageLimits(t.db, user.user.id, { perDay: 1_000_000, perMonth: 'default' });
      await t.configCache!.invalidate(['usage-limits']);
      await firstQuestion();
      expect(await firstQuestion()).toEqual({ statements: [expect.stringMatching(/^with "created_run" as \(insert into "runs"/)], redisCommands: ['mget', 'evalsha'] });
    } finally {
      spy.mockRestore();
    }
  });

  it('admins read and set the default and overrides, audited; bad input is a 400 with issues; others get 403', async () => {
    const user = await t.signUp('user');
    expect(await (await setDefaults({ perDay: 5000, perMonth: 100000 })).json()).toEqual({ perDay: 5000, perMonth: 100000 });
    expect((await request('PUT', `/api/users/${user.user.id}/usage-limits`, admin, { perDay: 10, perMonth: 'unlimited' })).status).toBe(200);
    expect(await (await request('GET', `/api/users/${user.user.id}/usage-limits`, admin)).json()).toEqual({ perDay: 10, perMonth: 'unlimited' });
    const listed = (await (await request('GET', '/api/admin/usage-limits', admin)).json()) as { defaults: unknown; overrides: { userId: string }[] };
    expect(listed.defaults).toEqual({ perDay: 5000, perMonth: 100000 });
    expect(listed.overrides.find((entry) => entry.userId === user.user.id)).toEqual({ userId: user.user.id, perDay: 10, perMonth: 'unlimited' });

    for (const bad of [{ perDay: -1, perMonth: null }, { perDay: 1.5, perMonth: null }, { perDay: 'lots', perMonth: null }, { perDay: 0, perMonth: null }, { perDay: 10 }]) {
      const response = await setDefaults(bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(((await response.json()) as { error: { issues: unknown[] } }).error.issues.length).toBeGreaterThan(0);
    }
    const badOverride = await request('PUT', `/api/users/${user.user.id}/usage-limits`, admin, { perDay: -5, perMonth: 'default' });
    expect(badOverride.status).toBe(400);
    expect((await request('PUT', `/api/users/usr_nobody/usage-limits`, admin, { perDay: 'default', perMonth: 'default' })).status).toBe(404);

    for (const [method, path, body] of [
      ['GET', '/api/admin/usage-limits', undefined],
      ['PUT', '/api/admin/usage-limits', { perDay: null, perMonth: null }],
      ['GET', `/api/users/${user.user.id}/usage-limits`, undefined],
      ['PUT', `/api/users/${user.user.id}/usage-limits`, { perDay: 'unlimited', perMonth: 'unlimited' }],
    ] as const) {
      expect((await request(method, path, user, body)).status, `${method} ${path}`).toBe(403);
    }

    const audited = await t.db.select().from(auditEvents).where(eq(auditEvents.actorUserId, admin.user.id));
    expect(audited.map((event) => event.action)).toEqual(expect.arrayContaining(['usage-limit.update-default', 'usage-limit.update-user']));
    expect(audited.find((event) => event.action === 'usage-limit.update-user' && event.targetId === user.user.id)).toMatchObject({ targetType: 'user', targetId: user.user.id, details: { perDay: 10, perMonth: 'unlimited' } });
    await setDefaults({ perDay: null, perMonth: null });
  });
});
