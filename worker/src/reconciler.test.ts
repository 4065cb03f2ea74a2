import { runs } from '@agentq/shared/db';
import { enqueueRunJob, findRunJob, runsWithLiveJobs } from '@agentq/shared/queues';
import { chatFiles, chatSessions } from '@agentq/shared/db';
import { acceptUpload, createChatSession, markRunRunning, TEMPORARY_CHAT_IDLE_MS, UNSENT_UPLOAD_TTL_MS } from '@agentq/shared/services';
import { silentLogger } from '@agentq/shared/testing';
import { eq, sql } from 'drizzle-orm';
import { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startAgentHarness, type AgentHarness } from './agent/testing';
import { reconcileRuns, startReconciler } from './reconciler';
import { RUN_LEASE_MS, startRunLeases } from './run-lease';

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'unused' }]);
});

afterAll(async () => {
  await harness?.close();
});

/** A run some worker started, whose job Redis no longer has (a restart without persistence), older than the enqueue grace. */
async function runningWithoutJob(label: string) {
  const run = await harness.createRun(label);
  await markRunRunning(harness.db, run.id);
  await harness.db.update(runs).set({ createdAt: sql`now() - interval '1 minute'` }).where(eq(runs.id, run.id));
  return run;
}

describe('reconciler and run leases', () => {
  it('deletes an upload left behind for a day when it starts, and keeps a sent one', async () => {
    const { run } = await harness.startRun('with a file');
    const upload = async (name: string) => {
      const outcome = await acceptUpload(harness.db, { sessionId: run.sessionId!, userId: harness.userId, name, data: new TextEncoder().encode(name) });
      if (!outcome.ok) throw new Error(outcome.message);
      await harness.db.update(chatFiles).set({ createdAt: sql`now() - make_interval(secs => ${UNSENT_UPLOAD_TTL_MS / 1000 + 60})` }).where(eq(chatFiles.id, outcome.file.id));
      return outcome.file.id;
    };
    const abandoned = await upload('abandoned.txt');
    const fresh = await acceptUpload(harness.db, { sessionId: run.sessionId!, userId: harness.userId, name: 'fresh.txt', data: new TextEncoder().encode('fresh') });
    const reconciler = startReconciler(harness.db, harness.deps.queues, silentLogger, 60_000);
    try {
      await expect.poll(async () => (await harness.db.select({ id: chatFiles.id }).from(chatFiles).where(eq(chatFiles.id, abandoned))).length, { timeout: 5000 }).toBe(0);
      expect(fresh.ok && (await harness.db.select({ id: chatFiles.id }).from(chatFiles).where(eq(chatFiles.id, fresh.file.id))).length).toBe(1);
    } finally {
      reconciler.stop();
    }
  });

  it('deletes a temporary chat unused for a day when it starts, and keeps a regular one as old', async () => {
    const idle = async (temporary: boolean) => {
      const session = await createChatSession(harness.db, harness.userId, { temporary });
      await harness.db.update(chatSessions).set({ updatedAt: sql`now() - make_interval(secs => ${TEMPORARY_CHAT_IDLE_MS / 1000 + 60})` }).where(eq(chatSessions.id, session.id));
      return session.id;
    };
    const temporary = await idle(true);
    const regular = await idle(false);
    const reconciler = startReconciler(harness.db, harness.deps.queues, silentLogger, 60_000);
    try {
      await expect.poll(async () => (await harness.db.select({ id: chatSessions.id }).from(chatSessions).where(eq(chatSessions.id, temporary))).length, { timeout: 5000 }).toBe(0);
      expect(await harness.db.select({ id: chatSessions.id }).from(chatSessions).where(eq(chatSessions.id, regular))).toHaveLength(1);
    } finally {
      reconciler.stop();
    }
  });

  it('leaves a running run alone while a worker renews its lease, and restores it once the lease lapses', async () => {
    const run = await runningWithoutJob('leased');
    const leases = startRunLeases(harness.db, 100);
    const release = leases.hold(run.id);
    // The worker executing it is alive (its lease is renewed): a second copy would repeat its tool calls.
    await harness.db.update(runs).set({ updatedAt: sql`now() - interval '1 minute'` }).where(eq(runs.id, run.id));
    await expect.poll(async () => (await harness.db.select({ at: runs.updatedAt }).from(runs).where(eq(runs.id, run.id)))[0]!.at.getTime(), { timeout: 5000 }).toBeGreaterThan(Date.now() - 5000);
    expect(await reconcileRuns(harness.db, harness.deps.queues, silentLogger)).not.toContain(run.id);
    expect(await findRunJob(harness.deps.queues, run)).toBeFalsy();

    // The worker is gone: nobody renews, and after RUN_LEASE_MS the run is enqueued again.
    release();
    leases.stop();
    await harness.db.update(runs).set({ updatedAt: sql`now() - make_interval(secs => ${RUN_LEASE_MS / 1000 + 1})` }).where(eq(runs.id, run.id));
    expect(await reconcileRuns(harness.db, harness.deps.queues, silentLogger)).toContain(run.id);
    expect(await findRunJob(harness.deps.queues, run)).toBeTruthy();
  });

  it('restores a queued run without a job at once (no worker can be on it)', async () => {
    const run = await harness.createRun('queued');
    await harness.db.update(runs).set({ createdAt: sql`now() - interval '1 minute'` }).where(eq(runs.id, run.id));
    expect(await reconcileRuns(harness.db, harness.deps.queues, silentLogger)).toContain(run.id);
  });

  it('finds a backlog of waiting jobs in a few reads, without reading each run\'s job, and restores only the run whose job is gone', async () => {
    const queue = harness.deps.queues.chatTurns;
    await queue.pause();
    try {
      const backlog = await Promise.all(Array.from({ length: 30 }, (_, index) => harness.createRun(`backlog ${index}`)));
      for (const run of backlog.slice(0, 29)) await harness.enqueueRun(run.id);
      const parked = backlog[28]!;
      await (await findRunJob(harness.deps.queues, parked))!.remove();
      await enqueueRunJob(harness.deps.queues, parked, { delay: 60_000 });
      const withoutJob = backlog[29]!;
      await harness.db.update(runs).set({ createdAt: sql`now() - interval '1 minute'` }).where(sql`${runs.id} in ${backlog.map((run) => run.id)}`);
      // Paged as a million-job backlog would be: 30 jobs in pages of 7.
      expect([...(await runsWithLiveJobs(harness.deps.queues, backlog, 7))].sort()).toEqual(backlog.slice(0, 29).map((run) => run.id).sort());

      const reads = vi.spyOn(Job, 'fromId');
      try {
        const restored = await reconcileRuns(harness.db, harness.deps.queues, silentLogger);
        expect(restored.filter((id) => backlog.some((run) => run.id === id))).toEqual([withoutJob.id]);
        const readIds = reads.mock.calls.map((call) => call[1]);
        expect(readIds.filter((id) => backlog.some((run) => run.id === id))).toEqual([withoutJob.id]);
      } finally {
        reads.mockRestore();
      }
    } finally {
      await queue.resume();
    }
  });
});
