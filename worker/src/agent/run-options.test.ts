import { llmModels } from '@agentq/shared/db';
import { createChatSession, startChatRun, startRunInputSchema } from '@agentq/shared/services';
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
