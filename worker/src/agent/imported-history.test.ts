import { llmModels } from '@agentq/shared/db';
import { eq } from 'drizzle-orm';
import { askInSession, chatImportBodySchema, importChats, startRunInputSchema } from '@agentq/shared/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildMessage, startAgentHarness, textOf, type AgentHarness } from './testing';

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'Continuing from the imported chat.' }]);
  harness.startWorker();
});
afterAll(() => harness?.close());

describe('an imported chat', () => {
  it('is what the model reads before the next question: its text, reasoning and tool calls, none of what an import leaves out', async () => {
    const chats = chatImportBodySchema.parse({
      format: 'agentq.chat.v1',
      session: { title: 'Lyon' },
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'How far is Lyon?' }, { type: 'file', mediaType: 'image/png', url: 'http://127.0.0.1:9/map.png' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'step-start' },
            { type: 'tool-distance', toolCallId: 'call_1', state: 'output-available', input: { to: 'Lyon' }, output: { success: true, text: '465 km' }, callProviderMetadata: { openaiCompatible: { injected: true } } },
            { type: 'tool-deploy', toolCallId: 'call_2', state: 'approval-requested', input: {}, approval: { id: 'ap_1' } },
            { type: 'step-start' },
            { type: 'text', text: 'About 465 km.', providerMetadata: { openaiCompatible: { injected: true } } },
          ],
        },
      ],
    });
    const { items } = await importChats(harness.db, harness.userId, chats);
    // This harness's model by name: files running beside this one share the database, and the default model may be theirs.
    const [model] = await harness.db.select({ id: llmModels.id }).from(llmModels).where(eq(llmModels.baseUrl, harness.llm.url));
    const { run } = await askInSession(harness.db, { userId: harness.userId, sessionId: items[0]!.id, input: startRunInputSchema.parse({ content: 'And Marseille?', modelId: model!.id }) });
    await harness.enqueueRun(run.id);
    const ended = await harness.waitForEnd(run.id);
    expect(ended.status, ended.error ?? '').toBe('succeeded');
    expect(textOf(await rebuildMessage(await harness.events(run.id)))).toBe('Continuing from the imported chat.');

    const [request] = harness.llm.requests;
    const conversation = request!.messages.filter((message) => message.role !== 'system');
    expect(conversation).toEqual([
      { role: 'user', content: 'How far is Lyon?' },
      { role: 'assistant', content: null, tool_calls: [{ id: expect.stringMatching(/^msg_\w+-1$/), type: 'function', function: { name: 'distance', arguments: '{"to":"Lyon"}' } }] },
      { role: 'tool', tool_call_id: expect.stringMatching(/^msg_\w+-1$/), content: expect.any(String) },
      { role: 'assistant', content: 'About 465 km.' },
      { role: 'user', content: 'And Marseille?' },
    ]);
    expect((conversation[2] as { tool_call_id: string }).tool_call_id).toBe((conversation[1] as { tool_calls: { id: string }[] }).tool_calls[0]!.id);
    expect(JSON.parse(conversation[2]!.content as string)).toEqual({ success: true, text: '465 km' });
    expect(JSON.stringify(request)).not.toMatch(/injected|map\.png|call_2/);
  });
});
