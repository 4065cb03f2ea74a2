import { llmModels } from '@agentq/shared/db';
import { createAgent, createChatSession, createDocument, startChatRun, startRunInputSchema } from '@agentq/shared/services';
import type { ChatCompletionRequest } from '../../../infra/fake-llm/scripts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentHarness, type AgentHarness } from './testing';

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness(() => ({ text: 'Done.' }));
  harness.startWorker();
});
afterAll(() => harness?.close());

describe("a chat's sampling settings", () => {
  it('reach the model as temperature and max_tokens, and are not sent when the chat leaves them to the model', async () => {
    const [model] = await harness.db.select({ id: llmModels.id }).from(llmModels).where(eq(llmModels.baseUrl, harness.llm.url));
    const session = await createChatSession(harness.db, harness.userId, {});
    for (const settings of [{ temperature: 0.2, maxOutputTokens: 64 }, {}]) {
      const before = harness.llm.requests.length;
      const { run } = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content: 'Write a haiku', modelId: model!.id, ...settings }) });
      await harness.enqueueRun(run.id);
      expect((await harness.waitForEnd(run.id)).status).toBe('succeeded');
      const request = harness.llm.requests[before]!;
      if ('temperature' in settings) expect(request).toMatchObject({ temperature: 0.2, max_tokens: 64 });
      else for (const key of ['temperature', 'max_tokens']) expect(request).not.toHaveProperty(key);
    }
    // Out of range is the client's mistake, named.
    const refused = startRunInputSchema.safeParse({ content: 'x', temperature: 3, maxOutputTokens: 0.5 });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [['temperature'], 'Use a temperature from 0 to 2'],
      [['maxOutputTokens'], 'Use a whole number of tokens'],
    ]);
  });
});

/** The system message the model was sent ('' without one). */
function systemMessage(request: ChatCompletionRequest): string {
  const system = request.messages.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : '';
}

describe("a user's custom instructions", () => {
  it('reach the model after the agent\'s prompt and before memory, on a first question and a follow-up; a user without any sends none', async () => {
    const [model] = await harness.db.select({ id: llmModels.id }).from(llmModels).where(eq(llmModels.baseUrl, harness.llm.url));
    const agent = await createAgent(harness.db, { name: 'Travel agent', modelId: model!.id, systemPrompt: 'You plan trips.', loadMemory: true });
    await createDocument(harness.db, { userId: harness.userId }, { type: 'memory', title: 'Home', content: 'I live in Lyon.' });
    const instructions = "I'm a data engineer; answer briefly, metric units.";
    const session = await createChatSession(harness.db, harness.userId, { agentId: agent.id });

    const ask = async (content: string, userInstructions?: string | null) => {
      const before = harness.llm.requests.length;
      const started = await startChatRun(harness.db, { userId: harness.userId, userInstructions, session, input: startRunInputSchema.parse({ content }) });
      // The first question goes with its opening (the worker reads nothing first), a follow-up without.
      await harness.enqueueRun(started.run.id, started.opening);
      expect((await harness.waitForEnd(started.run.id)).status).toBe('succeeded');
      return { opened: started.opening !== undefined, system: systemMessage(harness.llm.requests[before]!) };
    };

    const first = await ask('How far is Paris?', instructions);
    expect(first.opened).toBe(true);
    expect(first.system).toMatch(/^You plan trips\.\n\n## About the user and how they want answers\nI'm a data engineer; answer briefly, metric units\.\n\n## What you remember about this user/);
    expect(first.system).toContain('I live in Lyon.');

    const followUp = await ask('And Rome?', instructions);
    expect(followUp.opened).toBe(false);
    expect(followUp.system).toContain(`## About the user and how they want answers\n${instructions}`);

    for (const none of [null, undefined, '']) {
      const { system } = await ask('And Madrid?', none);
      expect(system).not.toContain('About the user');
      expect(system).not.toContain('data engineer');
      expect(system).toMatch(/^You plan trips\.\n\n## What you remember about this user/);
    }
  });
});
