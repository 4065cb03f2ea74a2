import { agentTools, llmModels, type Database } from '@agentq/shared/db';
import { createTool } from '@agentq/shared/services';
import { count, eq } from 'drizzle-orm';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';

export const DEMO_MODEL_ID = 'mdl_scripted_demo';
export const DEMO_MODEL_NAME = 'Scripted demo model (not an LLM: follows [[directives]])';

/**
 * The all-in-one server's "scripted demo model": the fake OpenAI-compatible server on a loopback
 * port, registered as a clearly labelled model, so a newcomer can watch streaming, reasoning, tool
 * calls and approvals without an API key. On a fresh database it also adds the three basic tools.
 */
export async function startDemoModel(db: Database): Promise<FakeLlm> {
  const llm = await startFakeLlm({ recordRequests: false, latency: { timeToFirstTokenMs: 300, interTokenMs: 25 } });
  const [existing] = await db.select({ id: llmModels.id }).from(llmModels).where(eq(llmModels.id, DEMO_MODEL_ID));
  if (existing) {
    await db.update(llmModels).set({ baseUrl: llm.url, name: DEMO_MODEL_NAME }).where(eq(llmModels.id, DEMO_MODEL_ID));
  } else {
    await db.insert(llmModels).values({ id: DEMO_MODEL_ID, name: DEMO_MODEL_NAME, baseUrl: llm.url, modelId: 'agentq-demo', supportsReasoning: true });
  }
  const [tools] = await db.select({ value: count() }).from(agentTools);
  if ((tools?.value ?? 0) === 0) {
    await createTool(db, { name: 'Web fetch', slug: 'web_fetch', type: 'fetch', description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, sortOrder: 0, config: {} });
    await createTool(db, { name: 'Calculator', slug: 'calculator', type: 'calculator', description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, sortOrder: 10, config: {} });
    await createTool(db, { name: 'Date and time', slug: 'datetime', type: 'datetime', description: '', enabled: true, needsApproval: false, approvalTimeoutMs: null, sortOrder: 20, config: {} });
  }
  return llm;
}
