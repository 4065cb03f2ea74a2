import { messages } from '@agentq/shared/db';
import { getRun, markRunRunning, transitionRun } from '@agentq/shared/services';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckpointer } from './checkpoint';
import { finishRun } from './finish-run';
import { openRunStream } from './open-run-stream';
import { startAgentHarness, type AgentHarness } from './testing';

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'unused' }]);
});

afterAll(async () => {
  await harness?.close();
});

describe('finishRun', () => {
  it('never overwrites a run another attempt already finished (its message and outcome stand)', async () => {
    const created = await harness.createRun('finish twice');
    await markRunRunning(harness.db, created.id);
    const run = await getRun(harness.db, created.id);
    // The first attempt (e.g. the worker Redis lost the job of) finished with the whole answer.
    const first = await openRunStream(harness.deps, run, 1);
    first.emit({ type: 'start', messageId: run.id });
    first.emit({ type: 'text-start', id: 't0' });
    first.emit({ type: 'text-delta', id: 't0', delta: 'The whole answer.' });
    first.emit({ type: 'text-end', id: 't0' });
    const progress = { steps: 1, usage: {} };
    expect(await finishRun(harness.deps, { run, stream: first, checkpointer: createCheckpointer(harness.deps, run, first), progress, outcome: { status: 'succeeded', finishReason: 'stop' } })).toBe('succeeded');

    // A late second attempt with less to say, and another outcome, changes nothing.
    const second = await openRunStream(harness.deps, run, 2);
    const parts = [{ type: 'text', text: 'A partial answer.' }] as never;
    expect(await finishRun(harness.deps, { run, stream: second, checkpointer: createCheckpointer(harness.deps, run, second), progress, outcome: { status: 'failed', error: 'late' }, message: { id: run.id, role: 'assistant', parts } })).toBe('succeeded');
    const stored = await harness.db.select().from(messages).where(and(eq(messages.runId, run.id), eq(messages.role, 'assistant')));
    expect(stored.map((row) => row.parts)).toEqual([[expect.objectContaining({ type: 'text', text: 'The whole answer.' })]]);
    expect(await getRun(harness.db, run.id)).toMatchObject({ status: 'succeeded', error: null });
    expect(await transitionRun(harness.db, run.id, 'failed', {})).toMatchObject({ ok: false, status: 'succeeded' });
  });
});
