import { runs, schedules } from '@agentq/shared/db';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, insertBackgroundModel } from '../testing';

let t: Awaited<ReturnType<typeof createTestApp>>;
let modelId: string;

beforeAll(async () => {
  t = await createTestApp();
  modelId = await insertBackgroundModel(t.db, 'Schedules model');
});
afterAll(async () => {
  // The test database is shared with other files: leave no enabled schedule behind for their reconcilers.
  if (userIds.length) await t.db.delete(schedules).where(inArray(schedules.userId, userIds));
  await t.close();
});

const userIds: string[] = [];
async function signUp(role: 'admin' | 'user') {
  const account = await t.signUp(role);
  userIds.push(account.user.id);
  return account;
}

type Account = { headers: Record<string, string> };
const request = (method: string, path: string, account: Account, body?: unknown, headers: Record<string, string> = {}) =>
  t.app.request(path, { method, headers: { ...account.headers, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
const daily = { name: 'Morning brief', prompt: 'Summarise the news', cron: '0 9 * * *' };

describe('schedules', () => {
  it('refuses a bad cron or time zone with a 400 naming the field, and never answers 500', async () => {
    const user = await signUp('user');
    for (const [body, field] of [
      [{ ...daily, cron: 'every morning' }, 'cron'],
      [{ ...daily, cron: '61 * * * *' }, 'cron'],
      [{ ...daily, cron: '0 9 * * * * *' }, 'cron'],
      [{ ...daily, cron: '0 9 *' }, 'cron'],
      [{ ...daily, cron: '0 0 30 2 *' }, 'cron'],
      [{ ...daily, timezone: 'Mars/Olympus' }, 'timezone'],
      [{ ...daily, name: '' }, 'name'],
      [{ ...daily, name: 'x'.repeat(101) }, 'name'],
      [{ ...daily, prompt: 'x'.repeat(8_001) }, 'prompt'],
      [{ ...daily, target: 'elsewhere' }, 'target'],
    ] as const) {
      const refused = await request('POST', '/api/schedules', user, body);
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((await refused.json()).error.issues.map((issue: { path: string[] }) => issue.path[0]), JSON.stringify(body).slice(0, 80)).toContain(field);
    }
    const created = await (await request('POST', '/api/schedules', user, daily)).json();
    const patched = await request('PATCH', `/api/schedules/${created.id}`, user, { timezone: 'Nowhere/Land' });
    expect(patched.status).toBe(400);
    expect((await patched.json()).error.issues[0].path).toEqual(['timezone']);
    expect((await request('PATCH', `/api/schedules/${created.id}`, user, {})).status).toBe(400);
    expect((await request('GET', '/api/schedules', user)).status).toBe(200);
  });

  it('shows the next fire computed in the schedule\'s time zone: 09:00 in Shanghai is 01:00 UTC', async () => {
    const user = await signUp('user');
    const response = await request('POST', '/api/schedules', user, { ...daily, timezone: 'Asia/Shanghai' });
    expect(response.status).toBe(201);
    const created = await response.json();
    expect(created).toMatchObject({ id: expect.stringMatching(/^sch_/), enabled: true, target: 'new-chat', timezone: 'Asia/Shanghai', lastRunId: null });
    const [listed] = (await (await request('GET', '/api/schedules', user)).json()).items;
    const next = new Date(listed.nextRunAt);
    expect([next.getUTCHours(), next.getUTCMinutes(), next.getUTCSeconds()]).toEqual([1, 0, 0]);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    // In UTC by default: 09:00 UTC.
    const utc = await (await request('POST', '/api/schedules', user, daily)).json();
    expect(utc.timezone).toBe('UTC');
    expect(new Date(utc.nextRunAt).getUTCHours()).toBe(9);
  });

  it('refuses a user a cron firing more often than once a minute; an admin may', async () => {
    const user = await signUp('user');
    const admin = await signUp('admin');
    for (const cron of ['* * * * * *', '*/30 * * * * *', '0,30 * * * * *']) {
      const refused = await request('POST', '/api/schedules', user, { ...daily, cron });
      expect(refused.status, cron).toBe(400);
      expect((await refused.json()).error.issues[0]).toMatchObject({ path: ['cron'], message: 'Fires more often than once a minute' });
    }
    expect((await request('POST', '/api/schedules', user, { ...daily, cron: '* * * * *' })).status).toBe(201);
    const everySecond = await request('POST', '/api/schedules', admin, { ...daily, cron: '* * * * * *', enabled: false });
    expect(everySecond.status).toBe(201);
    // Enabling a schedule edited into too frequent a cron is refused the same way.
    const hourly = await (await request('POST', '/api/schedules', user, { ...daily, cron: '0 * * * *' })).json();
    expect((await request('PATCH', `/api/schedules/${hourly.id}`, user, { cron: '*/10 * * * * *' })).status).toBe(400);
  });

  it('checks the agent and model as a send does: a model for admins only is refused to a user', async () => {
    const user = await signUp('user');
    const admin = await signUp('admin');
    const premium = await (await request('POST', '/api/models', admin, { name: 'Premium sched', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'premium', adminsOnly: true })).json();
    const refused = await request('POST', '/api/schedules', user, { ...daily, modelId: premium.id });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.message).toContain('for administrators only');
    expect((await request('POST', '/api/schedules', admin, { ...daily, modelId: premium.id })).status).toBe(201);
    const unknownAgent = await request('POST', '/api/schedules', user, { ...daily, agentId: 'agt_nope' });
    expect(unknownAgent.status).toBe(400);
    expect((await unknownAgent.json()).error.issues[0].path).toEqual(['agentId']);
    expect((await request('POST', '/api/schedules', user, { ...daily, modelId: 'mdl_nope' })).status).toBe(400);
  });

  it('keeps each user to their own schedules (404 for another\'s) and to 20 of them', async () => {
    const alice = await signUp('user');
    const bob = await signUp('user');
    const mine = await (await request('POST', '/api/schedules', alice, daily)).json();
    for (const [method, path, body] of [
      ['GET', `/api/schedules/${mine.id}`, undefined],
      ['PATCH', `/api/schedules/${mine.id}`, { name: 'Stolen' }],
      ['DELETE', `/api/schedules/${mine.id}`, undefined],
      ['POST', `/api/schedules/${mine.id}/run`, undefined],
    ] as const) {
      expect((await request(method, path, bob, body)).status, `${method} ${path}`).toBe(404);
    }
    expect((await (await request('GET', '/api/schedules', bob)).json()).items).toEqual([]);
    expect((await (await request('GET', `/api/schedules/${mine.id}`, alice)).json()).name).toBe('Morning brief');

    for (let index = 1; index < 20; index++) expect((await request('POST', '/api/schedules', alice, { ...daily, name: `S${index}` })).status).toBe(201);
    const over = await request('POST', '/api/schedules', alice, { ...daily, name: 'One too many' });
    expect(over.status).toBe(409);
    expect((await over.json()).error.message).toMatch(/up to 20 schedules/);
    expect((await (await request('GET', '/api/schedules', alice)).json()).items).toHaveLength(20);
  });

  it('keeps a Job Scheduler in Redis while enabled, with its cron and zone, and removes it when disabled or deleted', async () => {
    const user = await signUp('user');
    const created = await (await request('POST', '/api/schedules', user, { ...daily, timezone: 'Europe/Paris' })).json();
    expect(await t.queues.scheduleFires.getJobScheduler(created.id)).toMatchObject({ pattern: '0 9 * * *', tz: 'Europe/Paris', template: { data: { scheduleId: created.id } } });
    const edited = await (await request('PATCH', `/api/schedules/${created.id}`, user, { cron: '30 7 * * 1-5' })).json();
    expect(edited.cron).toBe('30 7 * * 1-5');
    expect((await t.queues.scheduleFires.getJobScheduler(created.id))?.pattern).toBe('30 7 * * 1-5');
    const disabled = await (await request('PATCH', `/api/schedules/${created.id}`, user, { enabled: false })).json();
    expect(disabled).toMatchObject({ enabled: false, nextRunAt: null });
    expect(await t.queues.scheduleFires.getJobScheduler(created.id)).toBeUndefined();
    await request('PATCH', `/api/schedules/${created.id}`, user, { enabled: true });
    expect(await t.queues.scheduleFires.getJobScheduler(created.id)).toBeDefined();
    expect((await request('DELETE', `/api/schedules/${created.id}`, user)).status).toBe(204);
    expect(await t.queues.scheduleFires.getJobScheduler(created.id)).toBeUndefined();
    expect((await request('DELETE', `/api/schedules/${created.id}`, user)).status).toBe(404);
  });

  it('Run now starts a run in the schedule\'s chat (202 with the run and chat), records it, and refuses while that chat is busy', async () => {
    const user = await signUp('user');
    const schedule = await (await request('POST', '/api/schedules', user, { ...daily, modelId, target: 'same-chat', enabled: false })).json();
    const response = await request('POST', `/api/schedules/${schedule.id}/run`, user, undefined, { 'idempotency-key': 'first' });
    expect(response.status).toBe(202);
    const fired = await response.json();
    expect(fired).toMatchObject({ runId: expect.stringMatching(/^run_/), sessionId: expect.stringMatching(/^cs_/), status: 'queued' });
    const [run] = await t.db.select().from(runs).where(eq(runs.id, fired.runId));
    expect(run).toMatchObject({ sessionId: fired.sessionId, userId: user.user.id, modelId, idempotencyKey: 'schedule:run-now:first' });
    expect(await (await request('GET', `/api/sessions/${fired.sessionId}`, user)).json()).toMatchObject({ title: 'Morning brief', activeRunId: fired.runId });
    // Its chat turn was enqueued under the run's id, as a send's is.
    expect(await t.queues.chatTurns.getJob(fired.runId)).toBeDefined();
    const shown = await (await request('GET', `/api/schedules/${schedule.id}`, user)).json();
    expect(shown).toMatchObject({ lastRunId: fired.runId, lastRunStatus: 'queued', lastRunSessionId: fired.sessionId, sessionId: fired.sessionId });
    expect(shown.lastRunAt).toEqual(expect.any(String));
    // The same Idempotency-Key: the same run, not a second.
    expect((await (await request('POST', `/api/schedules/${schedule.id}/run`, user, undefined, { 'idempotency-key': 'first' })).json()).runId).toBe(fired.runId);
    // The chat's run is still going (no worker here): another Run now is refused, and says why.
    const busy = await request('POST', `/api/schedules/${schedule.id}/run`, user);
    expect(busy.status).toBe(409);
    expect((await busy.json()).error.message).toMatch(/still going/);
  });
});
