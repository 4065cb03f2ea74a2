import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DbHandle } from '../db/client';
import { agentDocuments, agentToolLogs, toolCalls } from '../db/schema';
import { openTestDb, uniqueEmail } from '../testing';
import { startLoopbackServer, type LoopbackServer } from '../tools/fetch/test-server';
import { callsHaveNoEffect, createTool, executeTool, type AgentTool } from './tools';
import { beginToolCall, INTERRUPTED_ERROR, toolCallsOfRun, WorkerStoppingError } from './tool-journal';
import { claimRun, transitionRun } from './run-lifecycle';
import { createToolRun, draftToolRun, getRun, storeToolRunDraft, type ToolRunDraft } from './runs';
import { createUser } from './users';

let database: DbHandle;
let server: LoopbackServer;
let userId: string;
let postTool: AgentTool;
let keyedPostTool: AgentTool;
let getTool: AgentTool;
let documentTool: AgentTool;
let slowTool: AgentTool;
let calcTool: AgentTool;

const slug = (base: string) => `${base}_${randomBytes(4).toString('hex')}`;
const fields = { description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, sortOrder: 0 };
const newRunId = () => `run_${randomBytes(6).toString('hex')}`;

function context(runId: string, toolCallId: string, signal?: AbortSignal) {
  return { userId, runId, sessionId: null, toolCallId, signal, allowPrivateNetworks: true, services: { db: database.db } };
}

/** What a crash between "started" and "completed" leaves behind: the journal row of attempt 1, no result. */
async function crashAfterStart(tool: AgentTool, runId: string, toolCallId: string, input: unknown, effect: 'idempotent' | 'non-idempotent') {
  await beginToolCall(database.db, { runId, toolCallId, toolId: tool.id, toolSlug: tool.slug, input, effect, retryInterrupted: tool.retryInterrupted });
}

beforeAll(async () => {
  database = await openTestDb();
  userId = (await createUser(database.db, { email: uniqueEmail('journal'), name: 'Journal', password: 'password-123', role: 'user' })).id;
  server = await startLoopbackServer((request, response) => {
    if (request.url === '/slow') return void setTimeout(() => response.end('late'), 5_000);
    response.setHeader('content-type', 'text/plain');
    response.end(`hit ${request.method}`);
  });
  postTool = await createTool(database.db, { ...fields, name: 'Post', slug: slug('post'), type: 'fetch', config: { defaultMethod: 'POST', parseMode: 'raw' } });
  keyedPostTool = await createTool(database.db, { ...fields, name: 'Keyed', slug: slug('keyed'), type: 'fetch', config: { defaultMethod: 'POST', parseMode: 'raw' }, retryInterrupted: 'with-idempotency-key' });
  getTool = await createTool(database.db, { ...fields, name: 'Get', slug: slug('get'), type: 'fetch', config: { parseMode: 'raw' } });
  slowTool = await createTool(database.db, { ...fields, name: 'Slow', slug: slug('slow'), type: 'fetch', config: { parseMode: 'raw', timeout: 60_000 } });
  documentTool = await createTool(database.db, { ...fields, name: 'Docs', slug: slug('docs'), type: 'document', config: {} });
  calcTool = await createTool(database.db, { ...fields, name: 'Calc', slug: slug('calc'), type: 'calculator', config: {} });
});

afterAll(async () => {
  await server?.close();
  await database?.close();
});

const hits = (path: string) => server.requests.filter((request) => request.url === path);

describe('the tool-call journal', () => {
  it("hands beforeRun the run's status as the journal's own statement read it; a throw there stops the call before it runs", async () => {
    const run = await createToolRun(database.db, { userId, toolId: getTool.id, input: {} });
    const seen: unknown[] = [];
    const refuseCancelled = (status: unknown) => {
      seen.push(status);
      if (status === 'cancelled') throw new Error('run cancelled');
    };
    const ran = await executeTool(database.db, { tool: getTool, input: { url: `${server.origin}/live-${run.id}` }, context: context(run.id, 'call_live'), beforeRun: refuseCancelled });
    expect(ran.success).toBe(true);
    await transitionRun(database.db, run.id, 'cancelled', { finishReason: 'cancelled' });
    await expect(
      executeTool(database.db, { tool: getTool, input: { url: `${server.origin}/late-${run.id}` }, context: context(run.id, 'call_late'), beforeRun: refuseCancelled }),
    ).rejects.toThrow('run cancelled');
    expect(seen).toEqual(['queued', 'cancelled']);
    expect(hits(`/live-${run.id}`)).toHaveLength(1);
    expect(hits(`/late-${run.id}`)).toHaveLength(0);
    expect(await toolCallsOfRun(database.db, run.id)).toMatchObject([
      { toolCallId: 'call_live', state: 'completed' },
      { toolCallId: 'call_late', state: 'interrupted' },
    ]);
  });

  it('a call with no effect, in a run that defers its log: no cancel read, and its log row and complete journal entry handed over as one write; a call with an effect ignores deferLog', async () => {
    const runId = newRunId();
    const deferred: Promise<void>[] = [];
    const deferLog = (written: Promise<void>) => void deferred.push(written);
    const beforeRun = vi.fn();
    const input = { expression: '6 * 7' };
    const ran = await executeTool(database.db, { tool: calcTool, input, context: context(runId, 'call_pure'), beforeRun, deferLog });
    const data = { expression: '6 * 7', result: '42' };
    expect(ran).toMatchObject({ success: true, data });
    expect(beforeRun).not.toHaveBeenCalled();
    expect(deferred).toHaveLength(1);
    await deferred[0];
    expect(await toolCallsOfRun(database.db, runId)).toMatchObject([{ toolCallId: 'call_pure', state: 'completed', effect: 'none', attempt: 1, result: { success: true, data } }]);
    expect(await database.db.select().from(agentToolLogs).where(eq(agentToolLogs.runId, runId))).toMatchObject([{ toolCallId: 'call_pure', status: 'success', output: JSON.stringify(data) }]);
    // A resumed run (finishJournaledCalls, which does not defer) reuses the stored result.
    expect(await executeTool(database.db, { tool: calcTool, input, context: context(runId, 'call_pure') })).toMatchObject({ success: true, data, replayed: true });

    const fetched = await executeTool(database.db, { tool: getTool, input: { url: `${server.origin}/effect-${runId}` }, context: context(runId, 'call_get'), beforeRun, deferLog });
    expect(fetched.success).toBe(true);
    expect(deferred).toHaveLength(1);
    // Journaled before it ran, as before: the begin's statement read the run's status (no such run here).
    expect(beforeRun).toHaveBeenCalledWith(null);
    expect((await toolCallsOfRun(database.db, runId)).find((entry) => entry.toolCallId === 'call_get')).toMatchObject({ state: 'completed', effect: 'idempotent' });
  });

  it('journals a call before it runs and completes it; a second attempt reuses the result without executing', async () => {
    const runId = newRunId();
    const input = { url: `${server.origin}/once-${runId}` };
    const first = await executeTool(database.db, { tool: postTool, input, context: context(runId, 'call_1') });
    expect(first.success && String(first.data)).toContain('hit POST');
    const again = await executeTool(database.db, { tool: postTool, input, context: context(runId, 'call_1') });
    expect(again).toMatchObject({ success: true, data: first.data, replayed: true });
    expect(hits(`/once-${runId}`)).toHaveLength(1);
    expect(await toolCallsOfRun(database.db, runId)).toMatchObject([{ toolCallId: 'call_1', state: 'completed', attempt: 1, effect: 'non-idempotent' }]);
  });

  it('sends the same Idempotency-Key on every attempt of a non-idempotent call, a different one per call, none on a GET', async () => {
    const runId = newRunId();
    await executeTool(database.db, { tool: postTool, input: { url: `${server.origin}/key-${runId}` }, context: context(runId, 'call_a') });
    await executeTool(database.db, { tool: postTool, input: { url: `${server.origin}/key-${runId}` }, context: context(runId, 'call_b') });
    await executeTool(database.db, { tool: getTool, input: { url: `${server.origin}/get-${runId}` }, context: context(runId, 'call_c') });
    expect(hits(`/key-${runId}`).map((request) => request.headers['idempotency-key'])).toEqual([`${runId}:call_a`, `${runId}:call_b`]);
    expect(hits(`/get-${runId}`)[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('never repeats a non-idempotent call a crash interrupted: it completes as the interrupted error', async () => {
    const runId = newRunId();
    const input = { url: `${server.origin}/crashed-${runId}` };
    await crashAfterStart(postTool, runId, 'call_1', input, 'non-idempotent');
    const resumed = await executeTool(database.db, { tool: postTool, input, context: context(runId, 'call_1') });
    expect(resumed).toMatchObject({ success: false, error: INTERRUPTED_ERROR, interrupted: true, metadata: { interrupted: true } });
    expect(hits(`/crashed-${runId}`)).toHaveLength(0);
    // Later attempts keep answering the same way, still without a request.
    expect(await executeTool(database.db, { tool: postTool, input, context: context(runId, 'call_1') })).toMatchObject({ error: INTERRUPTED_ERROR, replayed: true });
    expect(hits(`/crashed-${runId}`)).toHaveLength(0);
  });

  it('re-sends an interrupted non-idempotent call with the same key when the tool says so', async () => {
    const runId = newRunId();
    const input = { url: `${server.origin}/keyed-${runId}` };
    await crashAfterStart(keyedPostTool, runId, 'call_1', input, 'non-idempotent');
    const resumed = await executeTool(database.db, { tool: keyedPostTool, input, context: context(runId, 'call_1') });
    expect(resumed).toMatchObject({ success: true, metadata: { attempt: 2 } });
    expect(hits(`/keyed-${runId}`).map((request) => request.headers['idempotency-key'])).toEqual([`${runId}:call_1`]);
    expect(await toolCallsOfRun(database.db, runId)).toMatchObject([{ state: 'completed', attempt: 2 }]);
  });

  it('re-executes an interrupted idempotent call', async () => {
    const runId = newRunId();
    const input = { url: `${server.origin}/idem-${runId}` };
    await crashAfterStart(getTool, runId, 'call_1', input, 'idempotent');
    const resumed = await executeTool(database.db, { tool: getTool, input, context: context(runId, 'call_1') });
    expect(resumed.success && String(resumed.data)).toContain('hit GET');
    expect(hits(`/idem-${runId}`)).toHaveLength(1);
  });

  it('a stopping worker aborts the call, records it interrupted and hands over; the next worker decides by effect', async () => {
    const runId = newRunId();
    const controller = new AbortController();
    const input = { url: `${server.origin}/slow` };
    const running = executeTool(database.db, { tool: slowTool, input, context: context(runId, 'call_1', controller.signal) });
    setTimeout(() => controller.abort(new WorkerStoppingError()), 200);
    await expect(running).rejects.toBeInstanceOf(WorkerStoppingError);
    expect(await toolCallsOfRun(database.db, runId)).toMatchObject([{ state: 'interrupted', result: null }]);
  });

  it('a fetch with timeout 60000 is not cut at the runner default of 30 s', async () => {
    const runId = newRunId();
    // /slow answers after 5 s: the tool's own timeout (60 s) governs, so it succeeds.
    const result = await executeTool(database.db, { tool: slowTool, input: { url: `${server.origin}/slow` }, context: context(runId, 'call_1') });
    expect(result.success && String(result.data)).toContain('late');
    const { executionTimeoutMs, getToolType } = await import('../tools/registry');
    expect(executionTimeoutMs(getToolType('fetch'), slowTool.config)).toBe(60_000);
  }, 15_000);

  it('a type that ignores its signal is cut a second after its timeout; a cancelled run ends its call at once', async () => {
    const quickTool = await createTool(database.db, { ...fields, name: 'Quick', slug: slug('quick'), type: 'fetch', config: { parseMode: 'raw', timeout: 100 } });
    const { getToolType } = await import('../tools/registry');
    const hang = vi.spyOn(getToolType('fetch'), 'execute').mockImplementation(() => new Promise(() => {}));
    try {
      const started = performance.now();
      const timedOut = await executeTool(database.db, { tool: quickTool, input: { url: `${server.origin}/never` }, context: context(newRunId(), 'call_1') });
      expect(timedOut).toMatchObject({ success: false, error: 'Timed out after 100 ms', metadata: { timedOut: true, cancelled: false } });
      expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
      const controller = new AbortController();
      const running = executeTool(database.db, { tool: quickTool, input: { url: `${server.origin}/never` }, context: context(newRunId(), 'call_1', controller.signal) });
      setTimeout(() => controller.abort(new Error('run cancelled')), 50);
      expect(await running).toMatchObject({ success: false, error: 'Cancelled', metadata: { timedOut: false, cancelled: true } });
    } finally {
      hang.mockRestore();
    }
  });

  it('a document write commits with its journal completion: exactly once, even when the call is retried', async () => {
    const runId = newRunId();
    const input = { action: 'create', title: `Exactly once ${runId}`, content: 'body', type: 'document' };
    const created = await executeTool(database.db, { tool: documentTool, input, context: context(runId, 'call_1') });
    expect(created.success).toBe(true);
    const retried = await executeTool(database.db, { tool: documentTool, input, context: context(runId, 'call_1') });
    expect(retried).toMatchObject({ success: true, replayed: true });
    const rows = await database.db.select().from(agentDocuments).where(and(eq(agentDocuments.userId, userId), eq(agentDocuments.title, input.title)));
    expect(rows).toHaveLength(1);
  });

  it('a document write a crash interrupted is not repeated', async () => {
    const runId = newRunId();
    const input = { action: 'create', title: `Rolled back ${runId}`, content: 'body', type: 'document' };
    // The attempt that crashed: journaled as started; its transaction never committed, so no document exists.
    const begun = await beginToolCall(database.db, { runId, toolCallId: 'call_1', toolId: documentTool.id, toolSlug: documentTool.slug, input, effect: 'non-idempotent', retryInterrupted: 'never' });
    expect(begun.kind).toBe('execute');
    // A crashed attempt: the next one must not create it blindly (non-idempotent, never): it reports interrupted.
    const resumed = await executeTool(database.db, { tool: documentTool, input, context: context(runId, 'call_1') });
    expect(resumed).toMatchObject({ success: false, error: INTERRUPTED_ERROR });
    const rows = await database.db.select().from(agentDocuments).where(eq(agentDocuments.title, input.title));
    expect(rows).toHaveLength(0);
    const [entry] = await database.db.select().from(toolCalls).where(and(eq(toolCalls.runId, runId), eq(toolCalls.toolCallId, 'call_1')));
    expect(entry).toMatchObject({ state: 'completed', effect: 'non-idempotent' });
  });

  describe('a standalone run, whose claim is its call\'s begin', () => {
    /** What the tool-execution job does: claim the run, then execute as the claim says, ending the run in the log's statement. */
    async function standaloneAttempt(tool: AgentTool, runId: string, input: unknown) {
      const { claimed, firstStart } = await claimRun(database.db, runId);
      return executeTool(database.db, { tool, input, context: context(runId, 'standalone'), claimedAs: claimed ? (firstStart ? 'first' : 'again') : undefined, settlesRun: true });
    }

    it('writes no begin on its first claim: the entry is written complete with the log row and the run\'s end', async () => {
      const input = { url: `${server.origin}/first-claim` };
      const run = await createToolRun(database.db, { userId, toolId: postTool.id, input });
      const executed = await standaloneAttempt(postTool, run.id, input);
      expect(executed).toMatchObject({ success: true, runSettled: true });
      expect(await toolCallsOfRun(database.db, run.id)).toMatchObject([{ state: 'completed', attempt: 1, effect: 'non-idempotent', result: { success: true } }]);
      expect(await getRun(database.db, run.id)).toMatchObject({ status: 'succeeded', result: { success: true } });
      expect(hits('/first-claim')).toHaveLength(1);
    });

    it('never repeats a non-idempotent call whose first attempt died after its claim, though that attempt journaled nothing', async () => {
      const input = { url: `${server.origin}/died-after-claim` };
      const run = await createToolRun(database.db, { userId, toolId: postTool.id, input });
      expect((await claimRun(database.db, run.id)).firstStart).toBe(true); // the attempt that died
      const retried = await standaloneAttempt(postTool, run.id, input);
      expect(retried).toMatchObject({ success: false, error: INTERRUPTED_ERROR, interrupted: true });
      expect(hits('/died-after-claim')).toHaveLength(0);
      expect(await toolCallsOfRun(database.db, run.id)).toMatchObject([{ state: 'completed', result: { error: INTERRUPTED_ERROR } }]);
    });

    it('re-executes an idempotent call whose first attempt died after its claim, as attempt 2', async () => {
      const input = { url: `${server.origin}/idem-after-claim` };
      const run = await createToolRun(database.db, { userId, toolId: getTool.id, input });
      await claimRun(database.db, run.id);
      const retried = await standaloneAttempt(getTool, run.id, input);
      expect(retried).toMatchObject({ success: true, runSettled: true, metadata: { attempt: 2 } });
      expect(hits('/idem-after-claim')).toHaveLength(1);
      expect(await toolCallsOfRun(database.db, run.id)).toMatchObject([{ state: 'completed', attempt: 2 }]);
    });

    it('runs a call with no effect unclaimed: the run goes from queued to its end in the statement that logs the call, and a repeat changes nothing', async () => {
      expect(callsHaveNoEffect(calcTool)).toBe(true);
      expect([postTool, getTool, documentTool].map(callsHaveNoEffect)).toEqual([false, false, false]);
      const input = { expression: '6 * 7' };
      const run = await createToolRun(database.db, { userId, toolId: calcTool.id, input });
      const unclaimed = () => executeTool(database.db, { tool: calcTool, input, context: context(run.id, 'standalone'), unclaimed: true, settlesRun: true });
      expect(await unclaimed()).toMatchObject({ success: true, runSettled: true, data: { result: '42' } });
      const ended = await getRun(database.db, run.id);
      expect(ended).toMatchObject({ status: 'succeeded', result: { success: true, data: { result: '42' } } });
      expect(ended.startedAt).toEqual(ended.finishedAt);
      expect(await toolCallsOfRun(database.db, run.id)).toMatchObject([{ state: 'completed', effect: 'none', attempt: 1 }]);
      // A repeated job (its first attempt died after the statement): logged once, the run as it was.
      expect(await unclaimed()).toMatchObject({ success: true, runSettled: false });
      expect(await database.db.select().from(agentToolLogs).where(eq(agentToolLogs.runId, run.id))).toHaveLength(1);
      expect(await getRun(database.db, run.id)).toEqual(ended);

      // A failed call ends its run failed with the error, from queued as well.
      const bad = await createToolRun(database.db, { userId, toolId: calcTool.id, input: { expression: '1 +' } });
      expect(await executeTool(database.db, { tool: calcTool, input: { expression: '1 +' }, context: context(bad.id, 'standalone'), unclaimed: true, settlesRun: true })).toMatchObject({ success: false, runSettled: true });
      const failed = await getRun(database.db, bad.id);
      expect(failed).toMatchObject({ status: 'failed', error: expect.any(String) });
      expect(failed.error).toBe((failed.result as { error?: string }).error);
    });

    it('writes a draft run once, with its end and the call\'s log; a draft stored meanwhile ends as any run, and one cancelled meanwhile stays cancelled', async () => {
      const input = { expression: '6 * 7' };
      const execute = (draft: ToolRunDraft) => executeTool(database.db, { tool: calcTool, input, context: context(draft.id, 'standalone'), draft, settlesRun: true });
      // Nothing stored until the call ends: then the run, its log and its journal entry in one statement.
      const draft = draftToolRun({ userId, toolId: calcTool.id, input });
      await expect(getRun(database.db, draft.id)).rejects.toThrow(/not found/i);
      expect(await execute(draft)).toMatchObject({ success: true, runSettled: true, data: { result: '42' } });
      const written = await getRun(database.db, draft.id);
      expect(written).toMatchObject({ kind: 'tool', userId, toolId: calcTool.id, status: 'succeeded', options: { input }, queueJobId: draft.id, createdAt: draft.createdAt });
      expect(written.startedAt).toEqual(written.finishedAt);
      const [log] = await database.db.select().from(agentToolLogs).where(eq(agentToolLogs.runId, draft.id));
      expect(log!.createdAt).toEqual(written.finishedAt);
      expect(await toolCallsOfRun(database.db, draft.id)).toMatchObject([{ state: 'completed', effect: 'none' }]);
      // A repeated job: logged once, the run as it was.
      expect(await execute(draft)).toMatchObject({ success: true, runSettled: false });
      expect(await getRun(database.db, draft.id)).toEqual(written);

      // A wait that timed out stored the draft as queued (storeToolRunDraft): the job ends that run.
      const stored = draftToolRun({ userId, toolId: calcTool.id, input });
      expect(await storeToolRunDraft(database.db, stored)).toMatchObject({ status: 'queued', createdAt: stored.createdAt });
      expect(await execute(stored)).toMatchObject({ runSettled: true });
      expect(await getRun(database.db, stored.id)).toMatchObject({ status: 'succeeded', result: { data: { result: '42' } } });
      // Storing it after its worker wrote it changes nothing.
      expect(await storeToolRunDraft(database.db, stored)).toMatchObject({ status: 'succeeded' });

      // Stored, then cancelled by its owner before the job ran: the run stays cancelled.
      const cancelled = draftToolRun({ userId, toolId: calcTool.id, input });
      await storeToolRunDraft(database.db, cancelled);
      expect((await transitionRun(database.db, cancelled.id, 'cancelled')).ok).toBe(true);
      expect(await execute(cancelled)).toMatchObject({ runSettled: false });
      expect(await getRun(database.db, cancelled.id)).toMatchObject({ status: 'cancelled', result: null });
    });

    it('refuses to run a call with an effect unclaimed, before it runs', async () => {
      const input = { url: `${server.origin}/unclaimed-post` };
      const run = await createToolRun(database.db, { userId, toolId: postTool.id, input });
      await expect(executeTool(database.db, { tool: postTool, input, context: context(run.id, 'standalone'), unclaimed: true, settlesRun: true })).rejects.toThrow(/no effect/);
      expect(hits('/unclaimed-post')).toHaveLength(0);
      expect(await getRun(database.db, run.id)).toMatchObject({ status: 'queued' });
    });
  });
});
