import { sourcesOfParts } from '@agentq/shared/events';
import { acceptKnowledgeUpload, createAgent, createModel, createUser, updateKnowledgeBase, createChatSession, createKnowledgeBase, getChatSessionFor, ingestKnowledgeFile, listSessionMessages, startChatRun, startRunInputSchema } from '@agentq/shared/services';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sequence } from '../../../infra/fake-llm/scripts';
import type { OfferedModelTool } from './build-tool-set';
import { CHOSEN_KNOWLEDGE_TOOL, chosenKnowledgeTool } from './chosen-knowledge';
import { rebuildMessage, startAgentHarness, type AgentHarness } from './testing';

let harness: AgentHarness;
let modelId: string;

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'unused' }]);
  // A model of this file's own: the test database is shared with files running beside it.
  modelId = (await createModel(harness.db, { name: 'Chosen knowledge model', baseUrl: harness.llm.url, modelId: 'fake-model' }, harness.deps.config.appSecret)).id;
});

afterAll(async () => {
  await harness?.close();
});

const unique = () => randomBytes(4).toString('hex');

async function baseWith(name: string, fileName: string, text: string, ownerId = harness.userId): Promise<string> {
  const base = await createKnowledgeBase(harness.db, ownerId, { name });
  const upload = await acceptKnowledgeUpload(harness.db, base.id, { name: fileName, data: new TextEncoder().encode(text) });
  if (!upload.ok) throw new Error(upload.message);
  await ingestKnowledgeFile(harness.db, upload.file.id, { appSecret: harness.deps.config.appSecret, finalAttempt: true });
  return base.id;
}

/** A run of an agent with no tools, asking `content` with `options`. */
async function ask(content: string, options: Record<string, unknown>) {
  const agent = await createAgent(harness.db, { name: `No tools ${unique()}`, modelId, tools: [] });
  const session = await createChatSession(harness.db, harness.userId, { agentId: agent.id });
  const { run } = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content, ...options }) });
  const before = harness.llm.requests.length;
  await harness.enqueueRun(run.id);
  expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded' });
  return { run, session, requests: harness.llm.requests.slice(before) };
}

describe('knowledge bases chosen for a question', () => {
  it('offers an agent without tools a search over exactly the chosen bases, with tools off too, and cites the passage', async () => {
    const garden = await baseWith(`Garden ${unique()}`, 'roses.md', 'Pruning roses: cut rose stems back by a third in early spring.');
    await baseWith(`Orchard ${unique()}`, 'apples.md', 'Pruning roses in the orchard: never prune roses before the apples are picked.');
    harness.llm.setScript(
      sequence([{ toolCalls: [{ name: CHOSEN_KNOWLEDGE_TOOL, id: 'call_roses', input: { query: 'pruning roses' } }] }, { text: 'Cut them back by a third [1].' }], { countFrom: 'last-user-message' }),
    );
    const pool = harness.startWorker();
    try {
      for (const enableTools of [true, false]) {
        const { run, session, requests } = await ask('When do I prune roses?', { knowledgeBaseIds: [garden], enableTools });
        expect(run.options).toMatchObject({ knowledgeBaseIds: [garden] });
        // The model is offered the one search, described with the base's name.
        expect(requests[0]!.tools?.map((tool) => tool.function.name)).toEqual([CHOSEN_KNOWLEDGE_TOOL]);
        expect(requests[0]!.tools?.[0]?.function.description).toMatch(/Garden/);
        const toolMessage = String(requests.at(-1)!.messages.find((message) => message.role === 'tool' && message.tool_call_id === 'call_roses')?.content);
        expect(toolMessage).toMatch(/\[1\] file: roses\.md \(passage 1\)\nPruning roses: cut rose stems back by a third/);
        expect(toolMessage).not.toContain('apples.md');
        // The answer's sources carry the chosen base's passage: the citation chip.
        const answer = await rebuildMessage(await harness.events(run.id));
        expect(sourcesOfParts(answer.parts)).toMatchObject([{ index: 1, kind: 'knowledge', title: 'roses.md', knowledgeBaseId: garden }]);
        // The question records the chosen base for its chips; the model never read that part.
        const fresh = await getChatSessionFor(harness.db, session.id, harness.userId);
        const question = (await listSessionMessages(harness.db, fresh.id)).find((message) => message.role === 'user')!;
        expect(question.parts).toContainEqual({ type: 'data-knowledge-bases', data: { bases: [{ id: garden, name: expect.stringMatching(/^Garden/) }] } });
        expect(JSON.stringify(requests[0]!.messages)).not.toContain('data-knowledge-bases');
      }
    } finally {
      await pool.close(5000);
    }
  });

  it('a question without chosen bases is offered exactly what it was before (an agent without tools: none)', async () => {
    harness.llm.setScript([{ text: 'Plain answer.' }]);
    const pool = harness.startWorker();
    try {
      const { run, requests } = await ask('Hello there', {});
      expect(run.options).not.toHaveProperty('knowledgeBaseIds');
      expect(requests[0]!.tools ?? []).toEqual([]);
    } finally {
      await pool.close(5000);
    }
  });

  it('leaves out a base unshared between the send and the run: with none left, no search is offered', async () => {
    const admin = await createUser(harness.db, { email: `ck-admin-${unique()}@test.local`, name: 'Admin', password: 'password-123', role: 'admin' });
    const handbook = await baseWith(`Handbook ${unique()}`, 'leave.md', 'Parental leave: 20 weeks.', admin.id);
    const adminActor = { userId: admin.id, isAdmin: true, groupIds: [] };
    await updateKnowledgeBase(harness.db, adminActor, handbook, { shared: true });
    harness.llm.setScript([{ text: 'No search.' }]);
    const agent = await createAgent(harness.db, { name: `No tools ${unique()}`, modelId, tools: [] });
    const session = await createChatSession(harness.db, harness.userId, { agentId: agent.id });
    const { run } = await startChatRun(harness.db, { userId: harness.userId, session, input: startRunInputSchema.parse({ content: 'Leave?', knowledgeBaseIds: [handbook] }) });
    await updateKnowledgeBase(harness.db, adminActor, handbook, { shared: false });
    const before = harness.llm.requests.length;
    const pool = harness.startWorker();
    try {
      await harness.enqueueRun(run.id);
      expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded' });
      expect(harness.llm.requests[before]!.tools ?? []).toEqual([]);
    } finally {
      await pool.close(5000);
    }
  });

  it('takes another name when an admin tool already has it', () => {
    const taken = [{ name: CHOSEN_KNOWLEDGE_TOOL }, { name: `${CHOSEN_KNOWLEDGE_TOOL}_2` }] as OfferedModelTool[];
    const offered = chosenKnowledgeTool([{ id: 'kb_1', name: 'Notes' }], taken);
    expect(offered).toMatchObject({ name: `${CHOSEN_KNOWLEDGE_TOOL}_3`, needsApproval: false, tool: { type: 'knowledge', config: { knowledgeBaseIds: ['kb_1'], userBases: 'none' } } });
  });
});
