import { agentDocuments, llmModels } from '@agentq/shared/db';
import { createAgent, createChatSession, createDocument, startChatRun, startRunInputSchema } from '@agentq/shared/services';
import { requestToolNames, toolResultsSinceLastUserMessage, type ChatCompletionRequest } from '../../../infra/fake-llm/scripts';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentHarness, type AgentHarness } from './testing';

let harness: AgentHarness;

/** The model saves a memory whenever it is offered the document tool, then answers. */
let documentToolName = '';
const SAVED_MEMORY = { action: 'create', type: 'memory', title: 'Cat', content: 'The user has a cat named Mochi.' };

beforeAll(async () => {
  harness = await startAgentHarness((request) => {
    if (requestToolNames(request).includes(documentToolName) && toolResultsSinceLastUserMessage(request).length === 0) {
      return { toolCalls: [{ name: documentToolName, input: SAVED_MEMORY }] };
    }
    return { text: 'Done.' };
  });
  harness.startWorker();
});
afterAll(() => harness?.close());

/** The system message the model was sent ('' without one). */
function systemMessage(request: ChatCompletionRequest): string {
  const system = request.messages.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : '';
}

describe('a temporary chat', () => {
  it("neither reads the user's memory nor is offered the tool that writes it; a regular chat of the same agent does both", async () => {
    const [model] = await harness.db.select({ id: llmModels.id }).from(llmModels).where(eq(llmModels.baseUrl, harness.llm.url));
    const documents = await harness.createTool({ type: 'document', config: {} });
    const calculator = await harness.createTool({ type: 'calculator', config: {} });
    documentToolName = documents.slug;
    const agent = await createAgent(harness.db, {
      name: 'Remembering agent',
      modelId: model!.id,
      systemPrompt: 'You help.',
      loadMemory: true,
      tools: [{ toolId: documents.id }, { toolId: calculator.id }],
    });
    await createDocument(harness.db, { userId: harness.userId }, { type: 'memory', title: 'Home', content: 'I live in Lyon.' });
    const savedMemories = async () =>
      (await harness.db.select({ id: agentDocuments.id }).from(agentDocuments).where(and(eq(agentDocuments.userId, harness.userId), eq(agentDocuments.title, SAVED_MEMORY.title)))).length;

    const ask = async (temporary: boolean, content: string) => {
      const session = await createChatSession(harness.db, harness.userId, { agentId: agent.id, temporary });
      const before = harness.llm.requests.length;
      const started = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content }) });
      // Its first question goes with its opening (as from the API): the flag travels in the run's options.
      await harness.enqueueRun(started.run.id, started.opening);
      expect((await harness.waitForEnd(started.run.id)).status).toBe('succeeded');
      const requests = harness.llm.requests.slice(before);
      return { first: requests[0]!, requests };
    };

    const temporary = await ask(true, 'Remember that my cat is Mochi');
    expect(systemMessage(temporary.first)).toBe('You help.');
    expect(systemMessage(temporary.first)).not.toContain('Lyon');
    expect(requestToolNames(temporary.first)).toEqual([calculator.slug]);
    expect(temporary.requests).toHaveLength(1);
    expect(await savedMemories()).toBe(0);

    const regular = await ask(false, 'Remember that my cat is Mochi');
    expect(systemMessage(regular.first)).toMatch(/^You help\.\n\n## What you remember about this user/);
    expect(systemMessage(regular.first)).toContain('I live in Lyon.');
    expect(requestToolNames(regular.first).sort()).toEqual([calculator.slug, documents.slug].sort());
    expect(regular.requests).toHaveLength(2);
    expect(await savedMemories()).toBe(1);

    // A follow-up in the temporary chat (no opening: the worker reads the run) stays without memory too.
    const session = await createChatSession(harness.db, harness.userId, { agentId: agent.id, temporary: true });
    for (const content of ['First question', 'Second question']) {
      const before = harness.llm.requests.length;
      const started = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content }) });
      await harness.enqueueRun(started.run.id);
      expect((await harness.waitForEnd(started.run.id)).status).toBe('succeeded');
      expect(systemMessage(harness.llm.requests[before]!)).toBe('You help.');
      expect(requestToolNames(harness.llm.requests[before]!)).toEqual([calculator.slug]);
    }
    expect(await savedMemories()).toBe(1);
  });
});
