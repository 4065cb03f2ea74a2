import { knowledgeFiles } from '@agentq/shared/db';
import { enqueue } from '@agentq/shared/queues';
import { acceptKnowledgeUpload, createKnowledgeBase, createTool } from '@agentq/shared/services';
import { pdfWithPages } from '@agentq/shared/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sequence } from '../../../infra/fake-llm/scripts';
import { startAgentHarness, type AgentHarness } from '../agent/testing';

let harness: AgentHarness;
let pool: ReturnType<AgentHarness['startWorker']>;

beforeAll(async () => {
  harness = await startAgentHarness([{ text: 'unused' }]);
  pool = harness.startWorker();
});
afterAll(async () => {
  await pool?.close(5000);
  await harness?.close();
});

const HANDBOOK = `# Staff handbook

## Annual leave

Full-time staff get 25 days of annual leave each calendar year. Unused days carry over until the end of March.

## Remote access

The VPN needs two-factor authentication. Ask the service desk for a hardware token.
`;

/** Stores an upload and queues it the way POST /api/knowledge/:id/files does. */
async function uploadAndQueue(baseId: string, name: string, data: Uint8Array) {
  const outcome = await acceptKnowledgeUpload(harness.db, baseId, { name, data });
  if (!outcome.ok) throw new Error(outcome.message);
  await enqueue(harness.deps.queues, 'knowledgeIngestions', 'knowledge-ingestion', { fileId: outcome.file.id }, { jobId: outcome.file.id });
  return outcome.file;
}

const fileRow = async (id: string) => (await harness.db.select().from(knowledgeFiles).where(eq(knowledgeFiles.id, id)))[0];

describe('knowledge ingestion through the worker', () => {
  it('takes an uploaded Markdown file from processing to ready with its chunk count', async () => {
    const base = await createKnowledgeBase(harness.db, harness.userId, { name: 'Handbook' });
    const file = await uploadAndQueue(base.id, 'handbook.md', new TextEncoder().encode(HANDBOOK));
    expect(file.status).toBe('processing');
    await expect.poll(async () => (await fileRow(file.id))?.status, { timeout: 15_000 }).toBe('ready');
    const row = await fileRow(file.id);
    expect(row).toMatchObject({ error: null });
    expect(row!.chunkCount).toBeGreaterThan(0);
  });

  it('marks a damaged PDF failed with the reason', async () => {
    const base = await createKnowledgeBase(harness.db, harness.userId, { name: 'PDFs' });
    const file = await uploadAndQueue(base.id, 'broken.pdf', new TextEncoder().encode('%PDF-1.7\n1 0 obj <<>> garbage'));
    await expect.poll(async () => (await fileRow(file.id))?.status, { timeout: 15_000 }).toBe('failed');
    expect((await fileRow(file.id))!.error).toBe('The PDF could not be read; it may be damaged');
    const good = await uploadAndQueue(base.id, 'manual.pdf', pdfWithPages(['Press the red button to stop the conveyor.']));
    await expect.poll(async () => (await fileRow(good.id))?.status, { timeout: 15_000 }).toBe('ready');
  });
});

describe('knowledge tool in a chat run', () => {
  it('retrieves the passage the model asked for and sends it back fenced, with its file name', async () => {
    const base = await createKnowledgeBase(harness.db, harness.userId, { name: 'Handbook' });
    const file = await uploadAndQueue(base.id, 'handbook.md', new TextEncoder().encode(HANDBOOK));
    await expect.poll(async () => (await fileRow(file.id))?.status, { timeout: 15_000 }).toBe('ready');
    const tool = await createTool(harness.db, {
      name: 'Handbook',
      slug: `handbook_${Date.now().toString(36)}`,
      description: '',
      enabled: true,
      needsApproval: false,
      approvalTimeoutMs: null,
      sortOrder: 0,
      type: 'knowledge',
      config: { knowledgeBaseIds: [base.id], topK: 2 },
    });
    harness.llm.setScript(sequence([{ toolCalls: [{ name: tool.slug, id: 'call_kb', input: { query: 'VPN hardware token' } }] }, { text: 'Ask the service desk for a hardware token (handbook.md).' }], { countFrom: 'last-user-message' }));
    const run = await harness.createRun('How do I get VPN access?', [tool]);
    const requestsBefore = harness.llm.requests.length;
    await harness.enqueueRun(run.id);
    expect(await harness.waitForEnd(run.id)).toMatchObject({ status: 'succeeded', steps: 2 });

    const offered = harness.llm.requests[requestsBefore]!.tools?.find((candidate) => candidate.function.name === tool.slug);
    expect(offered?.function.description).toMatch(/^Search the reference files of the attached knowledge base/);
    const toolMessage = harness.llm.requests.at(-1)!.messages.find((message) => message.role === 'tool' && message.tool_call_id === 'call_kb');
    const content = String(toolMessage?.content);
    expect(content).toContain('untrusted reference text');
    expect(content).toMatch(/<untrusted-content id="[0-9a-f]{12}">\n\[1\] file: handbook\.md \(passage \d+\)\n[^]*Ask the service desk for a hardware token/);
  });
});
