import { createAgent, createChatSession, createModel, getChatSessionFor, getRun, startChatRun, startRunInputSchema, updateModel, type LlmModel } from '@agentq/shared/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerPool } from '../worker';
import { startAgentHarness, type AgentHarness } from './testing';

let harness: AgentHarness;
let pool: WorkerPool;
let priced: LlmModel;
let unpriced: LlmModel;

beforeAll(async () => {
  // Every answer reports 1,200 tokens in and 300 out.
  harness = await startAgentHarness(() => ({ text: 'An answer.', usage: { promptTokens: 1_200, completionTokens: 300 } }));
  priced = await createModel(harness.db, { name: 'Priced model', baseUrl: harness.llm.url, modelId: 'fake-model', inputPrice: 2.5, outputPrice: 10 }, harness.deps.config.appSecret);
  unpriced = await createModel(harness.db, { name: 'Unpriced model', baseUrl: harness.llm.url, modelId: 'fake-model' }, harness.deps.config.appSecret);
  pool = harness.startWorker();
});

afterAll(async () => {
  await pool?.close(5000);
  await harness?.close();
});

async function ask(model: LlmModel) {
  const agent = await createAgent(harness.db, { name: `Agent ${Math.random().toString(36).slice(2, 8)}`, modelId: model.id });
  const session = await getChatSessionFor(harness.db, (await createChatSession(harness.db, harness.userId, { agentId: agent.id })).id, harness.userId);
  const started = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content: 'What does it cost?' }) });
  await harness.enqueueRun(started.run.id, started.opening);
  return harness.waitForEnd(started.run.id);
}

describe("a run's cost", () => {
  it("is its tokens at its model's prices when it ended: a later price change leaves it, and a model with no price gives none", async () => {
    const first = await ask(priced);
    expect(first.status).toBe('succeeded');
    expect(first.usage).toMatchObject({ inputTokens: 1_200, outputTokens: 300 });
    // 1,200 × $2.50 + 300 × $10 per million tokens.
    expect(first.cost).toBe(0.006);

    await updateModel(harness.db, priced.id, { inputPrice: 0.15, outputPrice: null }, harness.deps.config.appSecret);
    const repriced = await ask(priced);
    expect(repriced.cost).toBe(0.00018);
    expect((await getRun(harness.db, first.id)).cost).toBe(0.006);

    expect((await ask(unpriced)).cost).toBeNull();
  });
});
