import { llmModels, type Database } from '@agentq/shared/db';
import { eq, ne } from 'drizzle-orm';
import { startFakeLlm, type FakeLlm } from '../fake-llm/server';

export const DEMO_MODEL_ID = 'mdl_scripted_demo';
export const DEMO_MODEL_NAME = 'Scripted demo model (not an LLM: follows [[directives]])';

export type DemoModelStart = { started: true; llm: FakeLlm } | { started: false; reason: string };

/**
 * The all-in-one server's "scripted demo model": the fake OpenAI-compatible server on a loopback
 * port, registered as a clearly labelled model, so a newcomer can watch streaming, reasoning, tool
 * calls and approvals without an API key. It is registered only while no other model exists (a real
 * model configured first keeps it out); once registered it keeps running so its chats still answer.
 */
export async function startDemoModel(db: Database): Promise<DemoModelStart> {
  const [existing] = await db.select({ id: llmModels.id }).from(llmModels).where(eq(llmModels.id, DEMO_MODEL_ID));
  if (!existing) {
    const [other] = await db.select({ name: llmModels.name }).from(llmModels).where(ne(llmModels.id, DEMO_MODEL_ID)).limit(1);
    if (other) return { started: false, reason: `another model is configured (${other.name})` };
  }
  const llm = await startFakeLlm({ recordRequests: false, latency: { timeToFirstTokenMs: 300, interTokenMs: 25 } });
  if (existing) {
    await db.update(llmModels).set({ baseUrl: llm.url, name: DEMO_MODEL_NAME }).where(eq(llmModels.id, DEMO_MODEL_ID));
  } else {
    await db.insert(llmModels).values({ id: DEMO_MODEL_ID, name: DEMO_MODEL_NAME, baseUrl: llm.url, modelId: 'agentq-demo', supportsReasoning: true });
  }
  return { started: true, llm };
}
