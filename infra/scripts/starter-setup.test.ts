import { agentTools, createDb, type DbHandle, llmModels } from '@agentq/shared/db';
import { createChatSession, createUser, ensureDefaultAgent, seedModelFromEnv, startChatRun, startRunInputSchema, updateModel } from '@agentq/shared/services';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_MODEL_ID, startDemoModel } from './demo-model';
import { ensureStarterTools } from './starter-tools';

const APP_SECRET = 'starter-setup-test-secret-000000';
let handle: DbHandle;
// One embedded database for the file (migrating one takes seconds); each test starts from empty tables.
beforeAll(async () => {
  handle = await createDb({ dataDir: 'memory://' });
  await handle.migrate();
});
afterAll(() => handle.close());
beforeEach(async () => {
  await handle.db.execute(sql`truncate table users, llm_models, agent_tools, agents cascade`);
});

describe('fresh install', () => {
  it('creates the basic tools, the code sandbox and a document tool for memory, once', async () => {
    expect(await ensureStarterTools(handle.db)).toBe(5);
    const tools = await handle.db.select().from(agentTools);
    expect(tools.map((tool) => tool.type).sort()).toEqual(['calculator', 'code', 'datetime', 'document', 'fetch']);
    expect(tools.every((tool) => tool.enabled)).toBe(true);
    expect(await ensureStarterTools(handle.db)).toBe(0);
  });

  it('registers the demo model only when no other model exists, and says why not', async () => {
    await seedModelFromEnv(handle.db, { baseUrl: 'http://127.0.0.1:9/v1', model: 'real-model' }, APP_SECRET);
    const skipped = await startDemoModel(handle.db);
    expect(skipped).toEqual({ started: false, reason: 'another model is configured (real-model)' });
    expect((await handle.db.select().from(llmModels)).map((model) => model.id)).not.toContain(DEMO_MODEL_ID);
  });

  it('registers the demo model on an empty install, and a model configured later becomes the default', async () => {
    const demo = await startDemoModel(handle.db);
    try {
      expect(demo.started).toBe(true);
      const seeded = await seedModelFromEnv(handle.db, { baseUrl: 'http://127.0.0.1:9/v1', model: 'real-model' }, APP_SECRET);
      expect(seeded?.model.isDefault).toBe(true);
      const models = await handle.db.select().from(llmModels);
      expect(models.filter((model) => model.isDefault).map((model) => model.modelId)).toEqual(['real-model']);
    } finally {
      if (demo.started) await demo.llm.close();
    }
  });

  it('a new chat runs on the default model; an admin moves the flag and the next chat follows it', async () => {
    const demo = await startDemoModel(handle.db);
    try {
      await ensureDefaultAgent(handle.db);
      const user = await createUser(handle.db, { email: 'u@test.local', name: 'U', password: 'password-123', role: 'user' });
      const newChatModel = async () => {
        const session = await createChatSession(handle.db, user.id, {});
        const { run } = await startChatRun(handle.db, { userId: user.id, session, input: startRunInputSchema.parse({ content: 'hi' }) });
        return run.modelId;
      };
      expect(await newChatModel()).toBe(DEMO_MODEL_ID);
      const seeded = await seedModelFromEnv(handle.db, { baseUrl: 'http://127.0.0.1:9/v1', model: 'real-model' }, APP_SECRET);
      expect(await newChatModel()).toBe(seeded!.model.id);
      await updateModel(handle.db, DEMO_MODEL_ID, { isDefault: true }, APP_SECRET);
      expect(await newChatModel()).toBe(DEMO_MODEL_ID);
      expect((await handle.db.select().from(llmModels)).filter((model) => model.isDefault)).toHaveLength(1);
    } finally {
      if (demo.started) await demo.llm.close();
    }
  });
});
