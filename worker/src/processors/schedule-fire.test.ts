import { chatSessions, llmModels, messages, runs, schedules } from '@agentq/shared/db';
import { enqueue, removeScheduleJob, upsertScheduleJob } from '@agentq/shared/queues';
import { addGroupMember, createAgent, createChatSession, createGroup, createModel, createSchedule, removeGroupMember, fireChatId, getSchedule, markRunRunning, periodWindow, runTokens, setUserUsageLimits, startChatRun, startRunInputSchema, transitionRun, usageLimitStatus, userChatTokens, type CreateScheduleInput, type ScheduleView } from '@agentq/shared/services';
import { silentLogger } from '@agentq/shared/testing';
import { Job } from 'bullmq';
import { and, eq, inArray, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentHarness, type AgentHarness } from '../agent/testing';
import type { ProcessorMap } from '../processor';
import { reconcileSchedules, SCHEDULE_SETTLE_MS } from '../reconciler';
import { processors } from '.';

let harness: AgentHarness;
let modelId: string;
const created: string[] = [];
/** Schedules whose first attempt of a fire crashes right after it started the run (a worker dying mid-fire). */
const crashAfterStart = new Set<string>();

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'Scheduled answer.' }]);
  modelId = (await createModel(harness.db, { name: `Scheduled ${Date.now()}`, baseUrl: harness.llm.url, modelId: 'fake-model' }, harness.deps.config.appSecret)).id;
  const crashing: ProcessorMap = {
    ...processors,
    scheduleFires: {
      'schedule-fire': async (job, deps) => {
        const outcome = await processors.scheduleFires['schedule-fire'](job, deps);
        if (crashAfterStart.has(job.data.scheduleId) && job.attemptsMade === 0) throw new Error('worker died after starting the run');
        return outcome;
      },
    },
  };
  harness.startWorker(undefined, crashing);
});

afterAll(async () => {
  // The test database is shared with other files: leave no enabled schedule behind for their reconcilers.
  if (created.length) await harness.db.delete(schedules).where(inArray(schedules.id, created));
  await harness?.close();
});

/** A schedule of the harness's user, created as an admin would (an every-second cron passes the frequency check). */
async function schedule(input: Partial<CreateScheduleInput> = {}): Promise<ScheduleView> {
  const row = await createSchedule(harness.db, { userId: harness.userId, isAdmin: true }, { name: 'Digest', prompt: 'What is new?', cron: '* * * * * *', modelId, ...input });
  created.push(row.id);
  return row;
}

/** The runs a schedule's fires started (their idempotency keys name the fire). */
const runsOf = (scheduleId: string) => harness.db.select().from(runs).where(like(runs.idempotencyKey, `schedule:repeat:${scheduleId}:%`));

/** Adds one fire of the schedule under `jobId`, as its Job Scheduler would, and waits for the job's outcome. */
async function fire(scheduleId: string, jobId: string): Promise<{ status: string; runId?: string; reason?: string }> {
  await enqueue(harness.deps.queues, 'scheduleFires', 'schedule-fire', { scheduleId }, { jobId, backoff: { type: 'fixed', delay: 100 } });
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    // The state first, then the job: a job read before it completed has no return value yet.
    if ((await harness.deps.queues.scheduleFires.getJobState(jobId)) === 'completed') return (await Job.fromId(harness.deps.queues.scheduleFires, jobId))!.returnvalue;
  }
  throw new Error(`fire ${jobId} did not complete`);
}

describe('scheduled prompts fire through the worker', () => {
  it('an every-second schedule fires, its run answers with the model\'s reply, and each fire gets a chat of its own (new-chat); disabling stops the fires', async () => {
    const digest = await schedule({ target: 'new-chat' });
    await upsertScheduleJob(harness.deps.queues, digest);
    await expect.poll(async () => (await runsOf(digest.id)).length, { timeout: 15_000, interval: 200 }).toBeGreaterThanOrEqual(2);
    await removeScheduleJob(harness.deps.queues, digest.id);
    await harness.db.update(schedules).set({ enabled: false }).where(eq(schedules.id, digest.id));
    expect(await harness.deps.queues.scheduleFires.getJobScheduler(digest.id)).toBeUndefined();
    // A fire taken just before the scheduler went may still be starting its run: read once none is active.
    await expect.poll(async () => Object.values(await harness.deps.queues.scheduleFires.getJobCounts('active', 'wait')).reduce((sum, count) => sum + count, 0), { timeout: 10_000, interval: 50 }).toBe(0);

    const fired = await runsOf(digest.id);
    for (const run of fired) expect((await harness.waitForEnd(run.id)).status).toBe('succeeded');
    const [first] = fired;
    const answer = await harness.db.select().from(messages).where(and(eq(messages.runId, first!.id), eq(messages.role, 'assistant')));
    expect(answer[0]?.parts).toContainEqual(expect.objectContaining({ type: 'text', text: 'Scheduled answer.' }));
    expect(new Set(fired.map((run) => run.sessionId)).size).toBe(fired.length);
    const shown = await getSchedule(harness.db, harness.userId, digest.id);
    expect(fired.map((run) => run.id)).toContain(shown.lastRunId);
    expect(shown.lastRunAt).toBeInstanceOf(Date);

    // Disabled: no more fires (give any fire already taken a moment to settle, then count).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const settled = (await runsOf(digest.id)).length;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await runsOf(digest.id)).length).toBe(settled);
  });

  it('a same-chat schedule appends every fire to the one chat it created on its first fire', async () => {
    const thread = await schedule({ target: 'same-chat', name: 'Thread' });
    const first = await fire(thread.id, `repeat:${thread.id}:1`);
    expect(first.status).toBe('started');
    await harness.waitForEnd(first.runId!);
    const second = await fire(thread.id, `repeat:${thread.id}:2`);
    await harness.waitForEnd(second.runId!);
    const fired = await runsOf(thread.id);
    expect(fired).toHaveLength(2);
    const shown = await getSchedule(harness.db, harness.userId, thread.id);
    expect(fired.every((run) => run.sessionId === shown.sessionId)).toBe(true);
    expect(shown.lastRunId).toBe(second.runId);
    const chat = await harness.db.select({ role: messages.role }).from(messages).where(eq(messages.sessionId, shown.sessionId!));
    expect(chat.map((message) => message.role).sort()).toEqual(['assistant', 'assistant', 'user', 'user']);
  });

  it('skips a fire while the chat\'s previous run is still running, and records why', async () => {
    const busy = await schedule({ target: 'same-chat', name: 'Busy' });
    const session = await createChatSession(harness.db, harness.userId, { title: 'Busy' });
    await harness.db.update(schedules).set({ sessionId: session.id }).where(eq(schedules.id, busy.id));
    const { run: running } = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content: 'Still thinking', modelId }) });
    await markRunRunning(harness.db, running.id);
    try {
      const outcome = await fire(busy.id, `repeat:${busy.id}:1`);
      expect(outcome).toEqual({ status: 'skipped', reason: 'The chat\'s previous run was still going' });
      expect(await runsOf(busy.id)).toHaveLength(0);
      expect(await getSchedule(harness.db, harness.userId, busy.id)).toMatchObject({ lastRunId: null, lastSkipReason: 'The chat\'s previous run was still going', lastSkippedAt: expect.any(Date) });
    } finally {
      await transitionRun(harness.db, running.id, 'cancelled', { finishReason: 'cancelled' });
    }
  });

  it("counts an ended run's tokens against its user's limit, and a fire over the limit starts nothing and records why", async () => {
    const metered = await schedule({ name: 'Metered' });
    const deps = { db: harness.db, redis: harness.deps.redis, prefix: harness.deps.config.prefix };
    const user = { id: harness.userId, isAdmin: true };
    // An override holds admins too (the harness's user is one); this one is far off.
    await setUserUsageLimits(harness.db, harness.userId, { perDay: 1_000_000_000, perMonth: 'default' });
    try {
      const started = await fire(metered.id, `repeat:${metered.id}:1`);
      expect(started.status).toBe('started');
      const ended = await harness.waitForEnd(started.runId!);
      const tokens = runTokens(ended.usage as never);
      expect(tokens).toBeGreaterThan(0);
      // The fire's check made the counter; the worker added the run's tokens at its end: it agrees with PostgreSQL.
      const today = periodWindow('day', new Date());
      await expect.poll(async () => (await usageLimitStatus(deps, user))[0]?.spent, { timeout: 5_000 }).toBe(await userChatTokens(harness.db, harness.userId, today.start, today.end));

      const [status] = await usageLimitStatus(deps, user);
      await setUserUsageLimits(harness.db, harness.userId, { perDay: status!.spent, perMonth: 'default' });
      const outcome = await fire(metered.id, `repeat:${metered.id}:2`);
      const reason = `You have used ${status!.spent} of your ${status!.spent} tokens today; you can send again after ${today.end.toISOString()}`;
      expect(outcome).toEqual({ status: 'skipped', reason });
      expect((await runsOf(metered.id)).map((run) => run.id)).toEqual([started.runId]);
      expect(await getSchedule(harness.db, harness.userId, metered.id)).toMatchObject({ lastRunId: started.runId, lastSkipReason: reason });
    } finally {
      await setUserUsageLimits(harness.db, harness.userId, { perDay: 'default', perMonth: 'default' });
    }
  });

  it('skips a fire whose agent the user may no longer use (taken out of its group), says why, and fires again once they are back', async () => {
    const group = await createGroup(harness.db, { name: `Finance ${Date.now()}` });
    const agent = await createAgent(harness.db, { name: `Finance agent ${Date.now()}`, modelId, groupIds: [group.id] });
    await addGroupMember(harness.db, group.id, harness.userId);
    const row = await createSchedule(harness.db, { userId: harness.userId, groupIds: [group.id] }, { name: 'Ledger', prompt: 'Close the books', cron: '0 3 * * *', agentId: agent.id });
    created.push(row.id);
    await removeGroupMember(harness.db, group.id, harness.userId);
    const chatsBefore = await harness.db.select({ id: chatSessions.id }).from(chatSessions).where(eq(chatSessions.userId, harness.userId));

    const outcome = await fire(row.id, `repeat:${row.id}:1`);
    expect(outcome).toEqual({ status: 'skipped', reason: expect.stringContaining(`Agent '${agent.name}' is only for some groups of users`) });
    expect(await runsOf(row.id)).toHaveLength(0);
    expect(await harness.db.select({ id: chatSessions.id }).from(chatSessions).where(eq(chatSessions.userId, harness.userId))).toHaveLength(chatsBefore.length);
    expect((await getSchedule(harness.db, harness.userId, row.id)).lastSkipReason).toContain('only for some groups');

    await addGroupMember(harness.db, group.id, harness.userId);
    const again = await fire(row.id, `repeat:${row.id}:2`);
    expect(again.status).toBe('started');
    expect((await harness.waitForEnd(again.runId!)).status).toBe('succeeded');
  });

  it('a fire retried after its worker died (same job id) starts no second run', async () => {
    const retried = await schedule({ name: 'Retried' });
    crashAfterStart.add(retried.id);
    const outcome = await fire(retried.id, `repeat:${retried.id}:1`);
    const job = await Job.fromId(harness.deps.queues.scheduleFires, `repeat:${retried.id}:1`);
    expect(job?.attemptsMade).toBe(2);
    const fired = await runsOf(retried.id);
    expect(fired.map((run) => run.id)).toEqual([outcome.runId]);
    expect((await harness.waitForEnd(outcome.runId!)).status).toBe('succeeded');
  });

  it('a fire that starts nothing leaves no empty chat, and a fire retried after its chat was made (a crash before the run) asks there', async () => {
    const gone = await createModel(harness.db, { name: `Gone ${Date.now()}`, baseUrl: harness.llm.url, modelId: 'fake-model' }, harness.deps.config.appSecret);
    const orphaned = await schedule({ name: 'Orphaned', modelId: gone.id });
    await harness.db.update(llmModels).set({ enabled: false }).where(eq(llmModels.id, gone.id));
    const chatsBefore = await harness.db.select({ id: chatSessions.id }).from(chatSessions).where(eq(chatSessions.userId, harness.userId));
    const outcome = await fire(orphaned.id, `repeat:${orphaned.id}:1`);
    expect(outcome.status).toBe('skipped');
    expect(await harness.db.select({ id: chatSessions.id }).from(chatSessions).where(eq(chatSessions.userId, harness.userId))).toHaveLength(chatsBefore.length);

    // The chat the crashed attempt made (its id is the fire's): the retry's run lands in it, and no second chat appears.
    const crashed = await schedule({ name: 'Crashed' });
    const fireId = `repeat:${crashed.id}:1`;
    const leftBehind = await createChatSession(harness.db, harness.userId, { title: 'Crashed · earlier' }, fireChatId(crashed.id, fireId));
    const retried = await fire(crashed.id, fireId);
    const [run] = await runsOf(crashed.id);
    expect(run).toMatchObject({ id: retried.runId, sessionId: leftBehind.id });
    expect((await harness.waitForEnd(run!.id)).status).toBe('succeeded');
  });

  it('a scheduler Redis lost is restored with its last missed fire made up once, not again on the next pass', async () => {
    // Saved two hours ago, hourly, never fired: the last hour's fire was missed.
    const missed = await schedule({ cron: '0 * * * *', name: 'Missed' });
    await harness.db.update(schedules).set({ updatedAt: new Date(Date.now() - 2 * 3600_000) }).where(eq(schedules.id, missed.id));
    const first = await reconcileSchedules(harness.db, harness.deps.queues, silentLogger);
    for (const id of first.restored) await removeScheduleJob(harness.deps.queues, id);
    expect(first.madeUp).toContain(missed.id);
    const madeUp = () => harness.db.select().from(runs).where(like(runs.idempotencyKey, `schedule:missed:${missed.id}:%`));
    await expect.poll(async () => (await madeUp()).length, { timeout: 15_000, interval: 100 }).toBe(1);
    const [run] = await madeUp();
    expect((await harness.waitForEnd(run!.id)).status).toBe('succeeded');
    expect(await getSchedule(harness.db, harness.userId, missed.id)).toMatchObject({ lastRunId: run!.id });

    // Lost again: the made-up run is the last fire now, so nothing is due to make up.
    const second = await reconcileSchedules(harness.db, harness.deps.queues, silentLogger);
    for (const id of second.restored) await removeScheduleJob(harness.deps.queues, id);
    expect(second.restored).toContain(missed.id);
    expect(second.madeUp).not.toContain(missed.id);
    expect(await madeUp()).toHaveLength(1);
  });

  it('the reconcile step restores a Job Scheduler Redis lost, and removes one whose schedule is disabled', async () => {
    const lost = await schedule({ cron: '0 9 * * *', timezone: 'Asia/Tokyo', name: 'Lost' });
    const stale = await schedule({ cron: '0 10 * * *', name: 'Stale', enabled: false });
    await upsertScheduleJob(harness.deps.queues, lost);
    await upsertScheduleJob(harness.deps.queues, stale);
    await harness.deps.queues.scheduleFires.removeJobScheduler(lost.id);
    expect(await harness.deps.queues.scheduleFires.getJobScheduler(lost.id)).toBeUndefined();

    // Saved a moment ago, a schedule is left to the request that saved it; a disabled one's scheduler goes at once.
    const first = await reconcileSchedules(harness.db, harness.deps.queues, silentLogger);
    expect(first.restored).not.toContain(lost.id);
    expect(first.removed).toContain(stale.id);
    expect(await harness.deps.queues.scheduleFires.getJobScheduler(stale.id)).toBeUndefined();
    const later = Date.now() + SCHEDULE_SETTLE_MS + 1000;
    const { restored } = await reconcileSchedules(harness.db, harness.deps.queues, silentLogger, later);
    // Other files' enabled schedules (the shared test database) are restored here too: drop them at once.
    for (const id of restored) if (!created.includes(id)) await removeScheduleJob(harness.deps.queues, id);
    expect(restored).toContain(lost.id);
    expect(await harness.deps.queues.scheduleFires.getJobScheduler(lost.id)).toMatchObject({ pattern: '0 9 * * *', tz: 'Asia/Tokyo' });
    // In step now: a second pass changes nothing of ours.
    const again = await reconcileSchedules(harness.db, harness.deps.queues, silentLogger, later);
    expect(again.restored).not.toContain(lost.id);
  });
});
