import { approvalsForRun, beginToolCall, decideApproval, getRun, INTERRUPTED_ERROR, markRunRunning, toolCallsOfRun } from '@agentq/shared/services';
import { RunEventPublisher } from '@agentq/shared/run-stream';
import { startLoopbackServer, type LoopbackServer } from '../../../shared/src/tools/fetch/test-server';
import { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sequence, type Turn } from '../../../infra/fake-llm/scripts';
import { createDb, messages, runs, schema, type Database } from '@agentq/shared/db';
import { silentLogger, testDatabaseUrl } from '@agentq/shared/testing';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { and, eq, sql } from 'drizzle-orm';
import type { ProcessorMap } from '../processor';
import { processors } from '../processors';
import { processChatTurn } from '../processors/chat-turn';
import { reconcileRuns, wakeDecidedRuns } from '../reconciler';
import type { RunEvent } from '@agentq/shared/events';
import { buildToolSet, expandOfferedTools } from './build-tool-set';
import { openRunStream } from './open-run-stream';
import { cancelInDatabase, rebuildMessage, startAgentHarness, textOf, type AgentHarness } from './testing';

let harness: AgentHarness;
let server: LoopbackServer;
const storedAtEffect = new Map<string, RunEvent[]>();

const script = (turns: Turn[]) => harness.llm.setScript(sequence(turns, { countFrom: 'last-user-message' }));

async function persistedParts(runId: string) {
  const [row] = await harness.db.select().from(messages).where(and(eq(messages.runId, runId), eq(messages.role, 'assistant')));
  return row?.parts;
}

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'unused' }]);
  server = await startLoopbackServer((request, response) => {
    if (request.url?.startsWith('/cancel-')) void cancelInDatabase(harness.db, request.url.slice('/cancel-'.length)).then(() => response.end('cancelled meanwhile'));
    else if (request.url?.startsWith('/slow')) setTimeout(() => response.end('slow but fine'), 1800);
    else if (request.url?.startsWith('/peek-')) {
      // What the run's stream held in Redis when the call's effect happened.
      const runId = request.url.slice('/peek-'.length);
      void harness.events(runId).then((events) => {
        storedAtEffect.set(runId, events);
        response.end('peeked');
      });
    }
    else response.end(`ok ${request.method}`);
  });
});

afterAll(async () => {
  await server?.close();
  await harness?.close();
});

const hits = (prefix: string) => server.requests.filter((request) => request.url?.startsWith(prefix));

describe('run loop', () => {
  it('streams a text answer, stores the last step\'s checkpoint with its end, and stores the answer once', async () => {
    const pool = harness.startWorker();
    script([{ text: 'Hello there, friend.' }]);
    const run = await harness.createRun('say hello');
    await harness.enqueueRun(run.id);
    const ended = await harness.waitForEnd(run.id);
    await pool.close(5000);
    expect(ended).toMatchObject({ status: 'succeeded', finishReason: 'stop', steps: 1 });
    expect(ended.checkpoint).toMatchObject({ done: true, finishReason: 'stop' });
    const events = await harness.events(run.id);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const rebuilt = await rebuildMessage(events);
    expect(textOf(rebuilt)).toBe('Hello there, friend.');
    expect(await persistedParts(run.id)).toEqual(rebuilt.parts);
  });

  it('writes a one-step run\'s row twice: the claim, then the end with the last step\'s checkpoint in the same statement', async () => {
    // A worker on a database handle that records every statement touching the run's row.
    const client = postgres(testDatabaseUrl(), { max: 2, onnotice: () => {} });
    const writes: string[] = [];
    let runId = '';
    const recording = drizzle({ client, schema, logger: { logQuery: (query, params) => void (/update "runs"/.test(query) && params.includes(runId) && writes.push(query)) } }) as unknown as Database;
    const pool = harness.startWorker(recording);
    try {
      script([{ text: 'Two writes only.' }]);
      const run = await harness.createRun('how many writes?');
      runId = run.id;
      await harness.enqueueRun(run.id);
      const ended = await harness.waitForEnd(run.id);
      expect(ended).toMatchObject({ status: 'succeeded', steps: 1, checkpoint: { done: true, finishReason: 'stop', steps: 1 } });
      expect(writes).toHaveLength(2);
      expect(writes[0]).toMatch(/set "status" = \$1, "started_at"/);
      expect(writes[1]).toMatch(/with moved as \(\s*update "runs" set status = \$1/);
    } finally {
      await pool.close(5000);
      await client.end();
    }
  });

  it('fails a run whose model goes quiet, before its first output or mid-answer, with a clear error instead of waiting forever', async () => {
    harness.deps.config.modelStallTimeoutMs = 1000;
    const pool = harness.startWorker();
    try {
      // A provider that accepted the request and hangs before the first token, then one that stops mid-answer.
      for (const latency of [{ timeToFirstTokenMs: 30_000 }, { timeToFirstTokenMs: 0, interTokenMs: 30_000 }]) {
        script([{ text: 'You will not hear the end of this.', latency }]);
        const run = await harness.createRun('talk to me');
        await harness.enqueueRun(run.id);
        const ended = await harness.waitForEnd(run.id);
        expect(ended, JSON.stringify(latency)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^The model sent nothing for 1 s, so the answer was stopped/) });
        const statuses = (await harness.events(run.id)).map((event) => event.chunk).filter((chunk) => chunk.type === 'data-run-status');
        expect(statuses.at(-1)).toMatchObject({ data: { status: 'failed' } });
      }
    } finally {
      await pool.close(5000);
      delete harness.deps.config.modelStallTimeoutMs;
    }
  });

  it('does not take a tool that runs longer than the stall timeout for a quiet model', async () => {
    harness.deps.config.modelStallTimeoutMs = 1000;
    const pool = harness.startWorker();
    try {
      const tool = await harness.createTool({ type: 'fetch', config: { parseMode: 'raw' } });
      script([{ toolCalls: [{ name: tool.slug, input: { url: `${server.origin}/slow` }, id: 'call_slow' }] }, { text: 'Fetched it.' }]);
      const run = await harness.createRun('fetch the slow page', [tool]);
      await harness.enqueueRun(run.id);
      expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded', steps: 2 });
    } finally {
      await pool.close(5000);
      delete harness.deps.config.modelStallTimeoutMs;
    }
  });

  it('journals every tool call and sends a non-idempotent one with its Idempotency-Key', async () => {
    const pool = harness.startWorker();
    const tool = await harness.createTool({ type: 'fetch', config: { parseMode: 'raw' } });
    script([{ toolCalls: [{ name: tool.slug, input: { url: `${server.origin}/order`, method: 'POST' }, id: 'call_order' }] }, { text: 'Ordered.' }]);
    const run = await harness.createRun('order something', [tool]);
    await harness.enqueueRun(run.id);
    expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded', steps: 2 });
    await pool.close(5000);
    const orders = hits('/order').filter((request) => request.headers['idempotency-key']?.toString().startsWith(run.id));
    expect(orders.map((request) => request.headers['idempotency-key'])).toEqual([`${run.id}:call_order`]);
    expect(await toolCallsOfRun(harness.db, run.id)).toMatchObject([{ toolCallId: 'call_order', state: 'completed', effect: 'non-idempotent', attempt: 1 }]);
  });
  it('runs a call the model makes only once the text before it and the call are stored, so a crash in the call cannot lose them', async () => {
    const tool = await harness.createTool({ type: 'fetch', config: { parseMode: 'raw' } });
    const run = await harness.createRun('peek', [tool]);
    await markRunRunning(harness.db, run.id);
    const stream = await openRunStream(harness.deps, run, 1);
    const controller = new AbortController();
    const offered = expandOfferedTools([{ tool, needsApproval: false }]);
    const tools = buildToolSet(harness.deps, offered, { runId: run.id, userId: run.userId, sessionId: run.sessionId, signal: controller.signal, beforeRun: async () => {}, onFatal: () => {}, callShown: stream.callShown });
    const execute = (toolCallId: string, messages: unknown[]) =>
      (tools[tool.slug]!.execute as (input: unknown, options: unknown) => Promise<{ text: string }>)({ url: `${server.origin}/peek-${run.id}`, method: 'GET' }, { toolCallId, messages });

    // The SDK runs the call as the model's response ends, before the run's output has read up to it.
    const called = execute('call_peek', []);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(hits(`/peek-${run.id}`)).toHaveLength(0);
    stream.emit({ type: 'start-step' });
    stream.emit({ type: 'text-start', id: 'txt-0' });
    stream.emit({ type: 'text-delta', id: 'txt-0', delta: 'Let me ' });
    // Coalesced for up to 55 ms: still only in memory when the call goes out, unless it is flushed for it.
    stream.emit({ type: 'text-delta', id: 'txt-0', delta: 'peek.' });
    stream.emit({ type: 'tool-input-available', toolCallId: 'call_peek', toolName: tool.slug, input: {} });
    expect((await called).text).toContain('peeked');
    const stored = storedAtEffect.get(run.id)!;
    expect(textOf(await rebuildMessage(stored))).toBe('Let me peek.');
    expect(stored.at(-1)?.chunk).toMatchObject({ type: 'tool-input-available', toolCallId: 'call_peek' });

    // An approved call runs from the history it was checkpointed in: nothing to wait for.
    storedAtEffect.delete(run.id);
    const approved = [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_approved', toolName: tool.slug, input: {} }] }];
    expect((await execute('call_approved', approved)).text).toContain('peeked');
    // A call the run never shows stops with the run.
    const never = execute('call_never', []);
    controller.abort(new Error('run stopped'));
    await expect(never).rejects.toThrow('run stopped');
    expect(hits(`/peek-${run.id}`)).toHaveLength(2);
    await stream.publisher.close();
  });

  it('reports a call of a tool it was not offered once, as an input error, and lets the model answer after it', async () => {
    const pool = harness.startWorker();
    const tool = await harness.createTool({ type: 'fetch', config: { parseMode: 'raw' } });
    script([{ toolCalls: [{ name: 'not_offered', input: { url: 'x' }, id: 'call_bad' }] }, { text: 'That tool does not exist.' }]);
    const run = await harness.createRun('fetch something', [tool]);
    await harness.enqueueRun(run.id);
    expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded', steps: 2 });
    await pool.close(5000);
    const events = await harness.events(run.id);
    const ofCall = events.map((event) => event.chunk).filter((chunk) => (chunk as { toolCallId?: string }).toolCallId === 'call_bad');
    expect(ofCall.map((chunk) => chunk.type).filter((type) => type.endsWith('-error'))).toEqual(['tool-input-error']);
    const rebuilt = await rebuildMessage(events);
    expect(rebuilt.parts.find((part) => 'toolCallId' in part && part.toolCallId === 'call_bad')).toMatchObject({ state: 'output-error' });
    expect(textOf(rebuilt)).toContain('That tool does not exist.');
    expect(await toolCallsOfRun(harness.db, run.id)).toEqual([]);
  });
});

describe("a session's first question, started beside its claim", () => {
  /** Runs `during` while the run's row is locked, so the worker's claim (an UPDATE of that row) waits; `then` runs before the lock is released. */
  async function withClaimHeld(runId: string, during: () => Promise<void>, then?: (sql: postgres.TransactionSql) => Promise<void>) {
    const locker = postgres(testDatabaseUrl(), { max: 1, onnotice: () => {} });
    try {
      await locker.begin(async (sql) => {
        await sql`select 1 from runs where id = ${runId} for update`;
        await during();
        await then?.(sql);
      });
    } finally {
      await locker.end();
    }
  }

  /**
   * A worker on a pool of its own: the held row also holds the worker's lease renewals (an UPDATE of
   * it every 2 s), each keeping a connection, which the run's setup reads must not wait behind.
   */
  async function workerOfItsOwn() {
    const handle = await createDb({ url: testDatabaseUrl(), poolSize: 12 });
    const pool = harness.startWorker(handle.db);
    return { pool, close: () => pool.close(5000).then(() => handle.close()) };
  }

  it('sends the model call while its claim waits, shows and writes nothing until the claim returns, then answers as usual', async () => {
    const { close } = await workerOfItsOwn();
    script([{ text: 'Asked before the claim.' }]);
    const { run, opening } = await harness.startRun('start before the claim');
    expect(opening).toMatchObject({ questionId: run.replyToMessageId, question: 'start before the claim' });
    const requestsBefore = harness.llm.requests.length;
    await withClaimHeld(run.id, async () => {
      await harness.enqueueRun(run.id, opening);
      await expect.poll(() => harness.llm.requests.length, { timeout: 10_000 }).toBe(requestsBefore + 1);
      const request = harness.llm.requests.at(-1)!;
      expect(JSON.stringify(request.messages)).toContain('start before the claim');
      // The model answered meanwhile; nothing of it (nor the run's start) is shown before the claim.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await harness.events(run.id)).toEqual([]);
    });
    const ended = await harness.waitForEnd(run.id);
    await close();
    expect(ended).toMatchObject({ status: 'succeeded', finishReason: 'stop', steps: 1, error: null });
    expect(harness.llm.requests.length).toBe(requestsBefore + 1);
    const events = await harness.events(run.id);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events[0]!.chunk).toMatchObject({ type: 'start', messageId: run.id });
    const rebuilt = await rebuildMessage(events);
    expect(textOf(rebuilt)).toBe('Asked before the claim.');
    expect(await persistedParts(run.id)).toEqual(rebuilt.parts);
  });

  it('drops the early model call of a run cancelled before its claim, and ends the run cancelled with nothing of the model shown', async () => {
    const { close } = await workerOfItsOwn();
    // Slow enough that the answer would still be streaming when the claim returns.
    script([{ text: 'WRONG: shown after cancel', latency: { timeToFirstTokenMs: 20, interTokenMs: 1000 } }]);
    const { run, opening } = await harness.startRun('cancel me before the claim');
    const requestsBefore = harness.llm.requests.length;
    await withClaimHeld(
      run.id,
      async () => {
        await harness.enqueueRun(run.id, opening);
        await expect.poll(() => harness.llm.requests.length, { timeout: 10_000 }).toBe(requestsBefore + 1);
      },
      // Cancelled as the API cancels a queued run, committed before the claim can look.
      async (sql) => void (await sql`update runs set status = 'cancelled', finish_reason = 'cancelled', finished_at = now() where id = ${run.id}`),
    );
    const ended = await harness.waitForEnd(run.id);
    // The early call was aborted, not left to stream to its end.
    await expect.poll(() => harness.llm.inFlight, { timeout: 2_000 }).toBe(0);
    await close();
    expect(ended).toMatchObject({ status: 'cancelled', finishReason: 'cancelled' });
    const events = await harness.events(run.id);
    expect(events.some((event) => event.chunk.type === 'text-delta' || event.chunk.type === 'text-start')).toBe(false);
    expect(events.at(-1)!.chunk.type).toBe('finish');
    expect(await persistedParts(run.id)).toBeUndefined();
  });

  it('goes the ordinary way when the stream it would start is not new, continuing its numbering', async () => {
    const { close } = await workerOfItsOwn();
    script([{ text: 'Numbered after the rest.' }]);
    const { run, opening } = await harness.startRun('a stream that is not new');
    // Something published for the run already (nothing does for a run its API just stored).
    const earlier = new RunEventPublisher(harness.deps.redis, harness.deps.config.prefix, run.id, 0);
    earlier.emit({ type: 'data-note', data: { note: 'before' }, transient: true } as never);
    await earlier.flush();
    await harness.enqueueRun(run.id, opening);
    const ended = await harness.waitForEnd(run.id);
    await close();
    expect(ended).toMatchObject({ status: 'succeeded', error: null });
    const events = await harness.events(run.id);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events[0]!.chunk.type).toBe('data-note');
    expect(textOf(await rebuildMessage(events))).toBe('Numbered after the rest.');
  });
});

describe('resume after a crash (checkpoint + tool journal)', () => {
  it('drops the partial step, does not repeat the interrupted non-idempotent call, and answers once', async () => {
    const tool = await harness.createTool({ type: 'fetch', config: { parseMode: 'raw' } });
    const run = await harness.createRun('pay the invoice', [tool]);
    const input = { url: `${server.origin}/pay-${run.id}`, method: 'POST' };
    // What a worker killed mid-call leaves: the run running, its stream with a partial step, the call journaled as started.
    await markRunRunning(harness.db, run.id);
    const crashed = new RunEventPublisher(harness.deps.redis, harness.deps.config.prefix, run.id, 0);
    crashed.emit({ type: 'start', messageId: run.id });
    crashed.emit({ type: 'start-step' });
    crashed.emit({ type: 'text-start', id: 'txt-0' });
    crashed.emit({ type: 'text-delta', id: 'txt-0', delta: 'Paying now.' });
    crashed.emit({ type: 'text-end', id: 'txt-0' });
    crashed.emit({ type: 'tool-input-available', toolCallId: 'call_pay', toolName: tool.slug, input });
    await crashed.flush();
    await beginToolCall(harness.db, { runId: run.id, toolCallId: 'call_pay', toolId: tool.id, toolSlug: tool.slug, input, effect: 'non-idempotent', retryInterrupted: 'never' });

    // The resumed model sees the call and its interrupted result (one assistant message) and answers.
    script([{ text: 'WRONG: the step was re-run' }, { text: 'The payment may or may not have gone through; please check.' }]);
    const pool = harness.startWorker();
    await harness.enqueueRun(run.id);
    expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded' });
    await pool.close(5000);

    expect(hits(`/pay-${run.id}`)).toHaveLength(0);
    const events = await harness.events(run.id);
    expect(events.find((event) => event.chunk.type === 'data-step-retry')?.chunk).toMatchObject({ data: { discardAfterSeq: 0 } });
    const rebuilt = await rebuildMessage(events);
    // The text streamed before the call survives the retry, once, before the tool card.
    expect(textOf(rebuilt)).toBe('Paying now.The payment may or may not have gone through; please check.');
    expect(rebuilt.parts.map((part) => part.type).filter((type) => type !== 'step-start')).toEqual(['text', `tool-${tool.slug}`, 'text']);
    const toolPart = rebuilt.parts.find((part) => part.type === `tool-${tool.slug}`) as { output?: { interrupted?: boolean; error?: string } } | undefined;
    expect(toolPart?.output).toMatchObject({ interrupted: true, error: INTERRUPTED_ERROR });
    expect(await persistedParts(run.id)).toEqual(rebuilt.parts);
    const lastRequest = harness.llm.requests.at(-1)!;
    expect(JSON.stringify(lastRequest.messages)).toContain('interrupted: the previous attempt may or may not have taken effect');
    expect(JSON.stringify(lastRequest.messages).match(/Paying now\./g)).toHaveLength(1);
    const { timeline } = (await harness.waitForEnd(run.id)).checkpoint!;
    expect(timeline!.steps.flatMap((step) => step.toolCalls)).toEqual([expect.objectContaining({ toolCallId: 'call_pay', status: 'interrupted' })]);
  });

  it('keeps text streamed before a tool call exactly once across two crashes while the tool runs', async () => {
    const tool = await harness.createTool({ type: 'fetch', config: { parseMode: 'raw' } });
    const run = await harness.createRun('look it up', [tool]);
    const input = { url: `${server.origin}/lookup-${run.id}`, method: 'GET' };
    await markRunRunning(harness.db, run.id);
    const crashed = new RunEventPublisher(harness.deps.redis, harness.deps.config.prefix, run.id, 0);
    crashed.emit({ type: 'start', messageId: run.id });
    crashed.emit({ type: 'start-step' });
    // An OpenAI-compatible provider closes its text only when the step ends: no text-end before the call.
    crashed.emit({ type: 'text-start', id: 'txt-0' });
    crashed.emit({ type: 'text-delta', id: 'txt-0', delta: 'Let me look ' });
    crashed.emit({ type: 'text-delta', id: 'txt-0', delta: 'that up.' });
    crashed.emit({ type: 'tool-input-start', toolCallId: 'call_look', toolName: tool.slug });
    crashed.emit({ type: 'tool-input-available', toolCallId: 'call_look', toolName: tool.slug, input });
    // First crash. A second attempt resumed (marker, the carried text, the call shown again) and died in the tool too.
    crashed.emit({ type: 'data-step-retry', data: { discardAfterSeq: 0, attempt: 2 }, transient: true });
    crashed.emit({ type: 'text-start', id: 'txt-0' });
    crashed.emit({ type: 'text-delta', id: 'txt-0', delta: 'Let me look that up.' });
    crashed.emit({ type: 'text-end', id: 'txt-0' });
    crashed.emit({ type: 'tool-input-available', toolCallId: 'call_look', toolName: tool.slug, input });
    await crashed.flush();
    await beginToolCall(harness.db, { runId: run.id, toolCallId: 'call_look', toolId: tool.id, toolSlug: tool.slug, input, effect: 'idempotent', retryInterrupted: 'never' });

    script([{ text: 'WRONG: the step was re-run' }, { text: 'Found it.' }]);
    const pool = harness.startWorker();
    await harness.enqueueRun(run.id);
    expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded' });
    await pool.close(5000);

    // Idempotent: the GET ran again (once), and the answer around it is whole and single.
    expect(hits(`/lookup-${run.id}`)).toHaveLength(1);
    const rebuilt = await rebuildMessage(await harness.events(run.id));
    expect(textOf(rebuilt)).toBe('Let me look that up.Found it.');
    expect(await persistedParts(run.id)).toEqual(rebuilt.parts);
    const sent = JSON.stringify(harness.llm.requests.at(-1)!.messages);
    expect(sent.match(/Let me look that up\./g)).toHaveLength(1);
  });

  it('never re-runs a last step that was checkpointed before the crash', async () => {
    const run = await harness.createRun('finish me');
    await markRunRunning(harness.db, run.id);
    const crashed = new RunEventPublisher(harness.deps.redis, harness.deps.config.prefix, run.id, 0);
    crashed.emit({ type: 'start', messageId: run.id });
    crashed.emit({ type: 'text-start', id: 'txt-0' });
    crashed.emit({ type: 'text-delta', id: 'txt-0', delta: 'Already answered.' });
    crashed.emit({ type: 'text-end', id: 'txt-0' });
    await crashed.flush();
    const { runs } = await import('@agentq/shared/db');
    await harness.db.update(runs).set({ steps: 1, checkpoint: { messages: [{ role: 'user', content: 'finish me' }], steps: 1, lastSeq: crashed.lastSeq, done: true, finishReason: 'stop' } }).where(eq(runs.id, run.id));
    script([{ text: 'WRONG: the last step ran twice' }]);
    const requestsBefore = harness.llm.requests.length;
    const pool = harness.startWorker();
    await harness.enqueueRun(run.id);
    expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded', finishReason: 'stop' });
    await pool.close(5000);
    expect(harness.llm.requests.length).toBe(requestsBefore);
    const events = await harness.events(run.id);
    expect(events.some((event) => event.chunk.type === 'data-step-retry')).toBe(false);
    expect(textOf(await rebuildMessage(events))).toBe('Already answered.');
    expect(textOf({ parts: (await persistedParts(run.id)) as never })).toBe('Already answered.');
  });
});

describe('cancel and outages', () => {
  it('a run cancelled only in the database stops at the next boundary and never reports success', async () => {
    const pool = harness.startWorker();
    const tool = await harness.createTool({ type: 'fetch', config: { parseMode: 'raw' } });
    const run = await harness.createRun('cancel me midway', [tool]);
    script([{ toolCalls: [{ name: tool.slug, input: { url: `${server.origin}/cancel-${run.id}` } }] }, { text: 'WRONG: ran after cancel' }]);
    const requestsBefore = harness.llm.requests.length;
    await harness.enqueueRun(run.id);
    const ended = await harness.waitForEnd(run.id);
    await pool.close(5000);
    expect(ended.status).toBe('cancelled');
    // The next step's request goes out beside the boundary's checkpoint (which reads the flag), so it
    // may have been sent; nothing of it is published, and no step follows.
    expect(harness.llm.requests.length - requestsBefore).toBeLessThanOrEqual(2);
    const events = await harness.events(run.id);
    expect(events.some((event) => event.chunk.type === 'text-delta')).toBe(false);
    expect(events.filter((event) => event.chunk.type === 'start-step')).toHaveLength(1);
    const statuses = events.filter((event) => event.chunk.type === 'data-run-status').map((event) => (event.chunk as { data: { status: string } }).data.status);
    expect(statuses).not.toContain('succeeded');
    expect(statuses.at(-1)).toBe('cancelled');
  });

  it('a database outage on the first read retries the job from the checkpoint instead of failing the run', async () => {
    let failures = 2;
    const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const flaky = new Proxy(harness.db, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property === 'select' && failures > 0) {
          return (...args: unknown[]) => {
            failures -= 1;
            throw outage;
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const pool = harness.startWorker(flaky);
    script([{ text: 'Survived the outage.' }]);
    const run = await harness.createRun('outage please');
    await harness.enqueueRun(run.id);
    const ended = await harness.waitForEnd(run.id);
    await pool.close(5000);
    expect(failures).toBe(0);
    expect(ended).toMatchObject({ status: 'succeeded', error: null });
    const job = await Job.fromId(harness.deps.queues.chatTurns, run.id);
    expect(job!.attemptsMade).toBeGreaterThanOrEqual(2);
  });
});

describe('approvals', () => {
  it('parks for approval, resumes after the decision and runs the approved call once', async () => {
    const pool = harness.startWorker();
    const tool = await harness.createTool({ type: 'fetch', config: { parseMode: 'raw' }, needsApproval: true });
    const run = await harness.createRun('book it', [tool]);
    script([{ toolCalls: [{ name: tool.slug, input: { url: `${server.origin}/book-${run.id}`, method: 'POST' } }] }, { text: 'Booked.' }]);
    await harness.enqueueRun(run.id);
    await expect.poll(async () => (await approvalsForRun(harness.db, run.id)).length, { timeout: 15_000 }).toBe(1);
    await expect.poll(async () => (await Job.fromId(harness.deps.queues.chatTurns, run.id))?.isDelayed(), { timeout: 15_000 }).toBe(true);
    const [approval] = await approvalsForRun(harness.db, run.id);
    await decideApproval(harness.db, approval!.id, { id: harness.userId, role: 'user' }, { decision: 'approve' });
    await (await Job.fromId(harness.deps.queues.chatTurns, run.id))!.promote();
    expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded' });
    await pool.close(5000);
    expect(hits(`/book-${run.id}`)).toHaveLength(1);
    expect(textOf(await rebuildMessage(await harness.events(run.id)))).toBe('Booked.');
  });

  it('a job Redis loses while the run parks leaves the run awaiting approval; the reconciler restores it and approve resumes it', async () => {
    // Redis restarting empty between the run's awaiting_approval write and its job's moveToDelayed
    // (the window a CI run hit): the first park finds the job gone.
    let lost = false;
    const outcomes: string[] = [];
    const losing: ProcessorMap = {
      ...processors,
      chatTurns: {
        'chat-turn': async (job, deps, token) => {
          const moveToDelayed = job.moveToDelayed.bind(job);
          job.moveToDelayed = async (timestamp, lockToken) => {
            if (!lost) {
              lost = true;
              const key = deps.queues.chatTurns.toKey(job.id!);
              await deps.redis.multi().del(key, `${key}:lock`).lrem(deps.queues.chatTurns.toKey('active'), 0, job.id!).exec();
            }
            return moveToDelayed(timestamp, lockToken);
          };
          return processChatTurn(job, deps, token).then(
            (result) => (outcomes.push('returned'), result),
            (error: Error) => (outcomes.push(error.name), Promise.reject(error)),
          );
        },
      },
    };
    const pool = harness.startWorker(undefined, losing);
    const tool = await harness.createTool({ type: 'fetch', config: { parseMode: 'raw' }, needsApproval: true });
    const run = await harness.createRun('book it despite Redis', [tool]);
    script([{ toolCalls: [{ name: tool.slug, input: { url: `${server.origin}/lost-${run.id}`, method: 'POST' } }] }, { text: 'Booked after all.' }]);
    await harness.enqueueRun(run.id);
    await expect.poll(() => outcomes, { timeout: 15_000 }).toEqual(['DelayedError']);
    expect(lost).toBe(true);
    expect(await getRun(harness.db, run.id)).toMatchObject({ status: 'awaiting_approval', error: null });
    expect(await Job.fromId(harness.deps.queues.chatTurns, run.id)).toBeUndefined();

    // Past the enqueue grace, the reconciler finds the parked run without a job and enqueues it again.
    await harness.db.update(runs).set({ createdAt: sql`now() - interval '1 minute'` }).where(eq(runs.id, run.id));
    expect(await reconcileRuns(harness.db, harness.deps.queues, silentLogger)).toContain(run.id);
    expect(await (await Job.fromId(harness.deps.queues.chatTurns, run.id))?.isDelayed()).toBe(true);
    const [approval] = await approvalsForRun(harness.db, run.id);
    await decideApproval(harness.db, approval!.id, { id: harness.userId, role: 'user' }, { decision: 'approve' });
    expect(await wakeDecidedRuns(harness.db, harness.deps.queues, silentLogger)).toContain(run.id);
    expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded' });
    await pool.close(5000);
    expect(hits(`/lost-${run.id}`)).toHaveLength(1);
    expect(textOf(await rebuildMessage(await harness.events(run.id)))).toBe('Booked after all.');
  });

  it('"for this session" lets the same tool run again later in the run without asking', async () => {
    const pool = harness.startWorker();
    const tool = await harness.createTool({ type: 'fetch', config: { parseMode: 'raw' }, needsApproval: true });
    const run = await harness.createRun('book twice', [tool]);
    script([
      { toolCalls: [{ name: tool.slug, input: { url: `${server.origin}/first-${run.id}`, method: 'POST' } }] },
      { toolCalls: [{ name: tool.slug, input: { url: `${server.origin}/second-${run.id}`, method: 'POST' } }] },
      { text: 'Booked both.' },
    ]);
    await harness.enqueueRun(run.id);
    await expect.poll(async () => (await Job.fromId(harness.deps.queues.chatTurns, run.id))?.isDelayed(), { timeout: 15_000 }).toBe(true);
    const [approval] = await approvalsForRun(harness.db, run.id);
    await decideApproval(harness.db, approval!.id, { id: harness.userId, role: 'user' }, { decision: 'approve', remember: 'session' });
    await (await Job.fromId(harness.deps.queues.chatTurns, run.id))!.promote();
    expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded' });
    await pool.close(5000);
    expect(await approvalsForRun(harness.db, run.id)).toHaveLength(1);
    expect(hits(`/first-${run.id}`)).toHaveLength(1);
    expect(hits(`/second-${run.id}`)).toHaveLength(1);
    expect(textOf(await rebuildMessage(await harness.events(run.id)))).toBe('Booked both.');
  });
});
