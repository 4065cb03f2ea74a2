import { newId } from '@agentq/shared/ids';
import { createAgent, createChatSession, startChatRun, startRunInputSchema } from '@agentq/shared/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentHarness, textOf, rebuildMessage, type AgentHarness } from '../agent/testing';
import { STORED_RUN_WAITS_MS } from './chat-turn';

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'Stored in time.' }]);
  harness.startWorker();
});

afterAll(async () => {
  await harness?.close();
});

describe('a chat turn whose job came before its run', () => {
  it('waits for a run stored just after its job was added (the API adds both at once), and ends a job whose run never comes', async () => {
    const agent = await createAgent(harness.db, { name: `Agent ${newId('agent')}`, modelId: harness.modelId, tools: [] });
    const session = await createChatSession(harness.db, harness.userId, { agentId: agent.id });
    const runId = newId('run');
    await harness.enqueueRun(runId);
    await new Promise((resolve) => setTimeout(resolve, 40));
    await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content: 'Are you there?' }), runId });
    const ended = await harness.waitForEnd(runId);
    expect(ended).toMatchObject({ id: runId, status: 'succeeded' });
    expect(textOf(await rebuildMessage(await harness.events(runId)))).toBe('Stored in time.');

    const missing = newId('run');
    const started = Date.now();
    await harness.enqueueRun(missing);
    const job = (await harness.deps.queues.chatTurns.getJob(missing))!;
    await expect.poll(async () => job.getState().then(async (state) => (state === 'failed' ? (await harness.deps.queues.chatTurns.getJob(missing))!.failedReason : state)), { timeout: 10_000 }).toMatch(/does not exist/);
    // It waited out every pause first, and was not retried: the run is missing, not late.
    expect(Date.now() - started).toBeGreaterThanOrEqual(STORED_RUN_WAITS_MS.reduce((sum, ms) => sum + ms, 0));
    expect((await harness.deps.queues.chatTurns.getJob(missing))!.attemptsMade).toBe(1);
  });
});
