import { acceptKnowledgeUpload, addGroupMember, createGroup, createKnowledgeBase, createTool, createUser, ingestKnowledgeFile, updateKnowledgeBase } from '@agentq/shared/services';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sequence } from '../../../infra/fake-llm/scripts';
import { startAgentHarness, type AgentHarness } from './testing';

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'unused' }]);
});

afterAll(async () => {
  await harness?.close();
});

const unique = () => randomBytes(4).toString('hex');

async function baseWith(ownerId: string, name: string, fileName: string, text: string): Promise<string> {
  const base = await createKnowledgeBase(harness.db, ownerId, { name });
  const upload = await acceptKnowledgeUpload(harness.db, base.id, { name: fileName, data: new TextEncoder().encode(text) });
  if (!upload.ok) throw new Error(upload.message);
  await ingestKnowledgeFile(harness.db, upload.file.id, { appSecret: harness.deps.config.appSecret, finalAttempt: true });
  return base.id;
}

describe('knowledge shared with a group, searched in a chat run', () => {
  it("searches the bases shared with the run's user (their group's, not another group's), and stops at the next search once unshared", async () => {
    const db = harness.db;
    const admin = await createUser(db, { email: `kb-admin-${unique()}@test.local`, name: 'KB admin', password: 'password-123', role: 'admin' });
    const adminActor = { userId: admin.id, isAdmin: true, groupIds: [] };
    const readers = await createGroup(db, { name: `Readers ${unique()}` });
    const others = await createGroup(db, { name: `Others ${unique()}` });
    await addGroupMember(db, readers.id, harness.userId);

    const handbook = await baseWith(admin.id, 'HR handbook', 'leave.md', 'Parental leave: parents get 20 weeks of paid parental leave.');
    const finance = await baseWith(admin.id, 'Finance', 'bonus.md', 'Parental leave bonus: finance staff get a parental leave bonus of 500 euros.');
    await baseWith(admin.id, 'Drafts', 'draft.md', 'Draft: parental leave may become 30 weeks.');
    await updateKnowledgeBase(db, adminActor, handbook, { shared: true, groupIds: [readers.id] });
    await updateKnowledgeBase(db, adminActor, finance, { shared: true, groupIds: [others.id] });

    // No base attached: the tool reads only what is shared with whoever asks.
    const tool = await createTool(
      db,
      { name: 'Shared knowledge', slug: `kbs_${unique()}`, description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, sortOrder: 0, type: 'knowledge', config: { knowledgeBaseIds: [], userBases: 'shared', topK: 5 } },
      { actorId: admin.id },
    );
    harness.llm.setScript(
      sequence([{ toolCalls: [{ name: tool.slug, id: 'call_leave', input: { query: 'parental leave' } }] }, { text: 'Parents get 20 weeks [1].' }], { countFrom: 'last-user-message' }),
    );
    const pool = harness.startWorker();
    const ask = async () => {
      const run = await harness.createRun('how long is parental leave?', [tool]);
      const before = harness.llm.requests.length;
      await harness.enqueueRun(run.id);
      expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded' });
      const request = harness.llm.requests.slice(before).at(-1)!;
      return String(request.messages.find((message) => message.role === 'tool' && message.tool_call_id === 'call_leave')?.content);
    };

    try {
      const shared = await ask();
      expect(shared).toMatch(/\[1\] file: leave\.md \(passage 1\)\nParental leave: parents get 20 weeks/);
      expect(shared).not.toContain('bonus.md');
      expect(shared).not.toContain('draft.md');

      // Unshared in another process's write: the very next search no longer reads it.
      await updateKnowledgeBase(db, adminActor, handbook, { shared: false });
      const unshared = await ask();
      expect(unshared).not.toContain('20 weeks');
      expect(unshared).toContain('No knowledge base is attached to this tool or shared with this user');
    } finally {
      await pool.close(5000);
    }
  });
});
