import { sourcesOfParts } from '@agentq/shared/events';
import { acceptKnowledgeUpload, createKnowledgeBase, createTool, ingestKnowledgeFile } from '@agentq/shared/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sequence } from '../../../infra/fake-llm/scripts';
import { rebuildMessage, startAgentHarness, textOf, type AgentHarness } from './testing';

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'unused' }]);
});

afterAll(async () => {
  await harness?.close();
});

const FILES = {
  'leave-policy.md': 'Annual leave policy: full-time staff get 25 days of annual leave each year.',
  'travel-policy.md': 'Travel policy: book trains for trips under 600 km and keep every receipt.',
  'vpn.md': 'The VPN needs a hardware token; ask the service desk for one.',
};

/** A knowledge base holding FILES, processed, and a knowledge tool over it named `name`. */
async function handbookTool(name: string, slugPrefix: string) {
  const db = harness.db;
  const base = await createKnowledgeBase(db, harness.userId, { name });
  for (const [fileName, text] of Object.entries(FILES)) {
    const upload = await acceptKnowledgeUpload(db, base.id, { name: fileName, data: new TextEncoder().encode(text) });
    if (!upload.ok) throw new Error(upload.message);
    await ingestKnowledgeFile(db, upload.file.id, { appSecret: harness.deps.config.appSecret, finalAttempt: true });
  }
  const tool = await createTool(
    db,
    { name, slug: `${slugPrefix}_${Date.now().toString(36)}`, description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, sortOrder: 0, type: 'knowledge', config: { knowledgeBaseIds: [base.id], topK: 5 } },
    { actorId: harness.userId },
  );
  return { tool, base };
}

describe('citations in a chat run', () => {
  it("numbers a knowledge search's sources across the answer: the second call continues at [3], in the text the model reads and in the stored output", async () => {
    const { tool, base } = await handbookTool('Handbook', 'kb');

    harness.llm.setScript(
      sequence(
        [
          { toolCalls: [{ name: tool.slug, id: 'call_policies', input: { query: 'policy' } }] },
          { toolCalls: [{ name: tool.slug, id: 'call_vpn', input: { query: 'hardware token' } }] },
          { text: 'Staff get 25 days [1]; trains under 600 km [2]; the VPN needs a token [3].' },
        ],
        { countFrom: 'last-user-message' },
      ),
    );
    const pool = harness.startWorker();
    const run = await harness.createRun('what do the policies say?', [tool]);
    const requestsBefore = harness.llm.requests.length;
    await harness.enqueueRun(run.id);
    const ended = await harness.waitForEnd(run.id);
    await pool.close(5000);
    expect(ended).toMatchObject({ status: 'succeeded' });

    // What the model read: the first call's passages are [1] and [2], the second call's continues at [3].
    const requests = harness.llm.requests.slice(requestsBefore);
    const toolText = (id: string) => String(requests.at(-1)!.messages.find((message) => message.role === 'tool' && message.tool_call_id === id)?.content);
    expect(toolText('call_policies')).toContain('Cite each passage you use by its number in square brackets');
    expect(toolText('call_policies')).toMatch(/\[1\] file: (leave|travel)-policy\.md \(passage 1\)/);
    expect(toolText('call_policies')).toMatch(/\[2\] file: (leave|travel)-policy\.md \(passage 1\)/);
    expect(toolText('call_policies')).not.toMatch(/\[3\] file/);
    expect(toolText('call_vpn')).toMatch(/\[3\] file: vpn\.md \(passage 1\)\nThe VPN needs a hardware token/);
    expect(toolText('call_vpn')).not.toMatch(/\[1\] file/);

    // What is stored and streamed: each call's output carries its sources with the same numbers.
    const message = await rebuildMessage(await harness.events(run.id));
    const outputs = message.parts.flatMap((part) => (part.type.startsWith('tool-') && 'output' in part ? [part as { toolCallId: string; output: { metadata: { sources: unknown[] } } }] : []));
    const byCall = Object.fromEntries(outputs.map((part) => [part.toolCallId, part.output.metadata.sources]));
    expect(byCall.call_policies).toHaveLength(2);
    expect(byCall.call_vpn).toEqual([{ index: 3, kind: 'knowledge', title: 'vpn.md', knowledgeBaseId: base.id, fileId: expect.any(String), position: 0, snippet: FILES['vpn.md'] }]);
    const sources = sourcesOfParts(message.parts);
    expect(sources.map((source) => source.index)).toEqual([1, 2, 3]);
    // The numbers name the passages the text says they do.
    const first = sources.find((source) => source.index === 1)!;
    expect(toolText('call_policies')).toContain(`[1] file: ${first.title} (passage 1)\n${first.snippet}`);
    expect(textOf(message)).toBe('Staff get 25 days [1]; trains under 600 km [2]; the VPN needs a token [3].');
  });

  it('gives calls made side by side in one step distinct numbers', async () => {
    const { tool } = await handbookTool('Parallel', 'kbp');
    harness.llm.setScript(
      sequence(
        [
          { toolCalls: [{ name: tool.slug, id: 'call_a', input: { query: 'policy' } }, { name: tool.slug, id: 'call_b', input: { query: 'hardware token' } }] },
          { text: 'Done [1][3].' },
        ],
        { countFrom: 'last-user-message' },
      ),
    );
    const pool = harness.startWorker();
    const run = await harness.createRun('both at once', [tool]);
    await harness.enqueueRun(run.id);
    expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded' });
    await pool.close(5000);
    const message = await rebuildMessage(await harness.events(run.id));
    const indexes = sourcesOfParts(message.parts).map((source) => source.index);
    // Two passages and one: three distinct numbers from 1, whichever call finished first.
    expect(indexes).toEqual([1, 2, 3]);
  });

  it('a run that calls no source tool carries no sources', async () => {
    harness.llm.setScript([{ text: 'Hello [1].' }]);
    const pool = harness.startWorker();
    const run = await harness.createRun('hi');
    await harness.enqueueRun(run.id);
    await harness.waitForEnd(run.id);
    await pool.close(5000);
    expect(sourcesOfParts((await rebuildMessage(await harness.events(run.id))).parts)).toEqual([]);
  });
});
