import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import type { DbHandle } from '../db/client';
import { llmModels } from '../db/schema';
import { openTestDb } from '../testing';
import { NotFoundError } from './errors';
import { createModel, deleteModel, getModel, getModelWithKey, listModels, seedModelFromEnv, updateModel } from './models';
import { SecretDecryptionError } from './secrets';

const APP_SECRET = 'models-test-secret-0123456789';
let database: DbHandle;

beforeAll(async () => {
  database = await openTestDb();
});

afterAll(async () => {
  await database?.close();
});

async function storedKey(id: string) {
  const [row] = await database.db.select({ apiKeyEncrypted: llmModels.apiKeyEncrypted }).from(llmModels).where(eq(llmModels.id, id));
  return row?.apiKeyEncrypted;
}

const baseInput = { name: 'GPT', baseUrl: 'https://api.example.com/v1', modelId: 'gpt-test' };

describe('models', () => {
  it('creates with defaults and keeps the key write-only: encrypted at rest, only hasApiKey in views', async () => {
    const model = await createModel(database.db, { ...baseInput, apiKey: '  sk-secret-123  ' }, APP_SECRET);
    expect(model).toMatchObject({ ...baseInput, supportsReasoning: false, enabled: true, hasApiKey: true });
    expect(model.id).toMatch(/^mdl_/);
    expect(model).not.toHaveProperty('apiKey');
    expect(model).not.toHaveProperty('apiKeyEncrypted');
    expect(JSON.stringify(await listModels(database.db))).not.toContain('sk-secret-123');
    expect(JSON.stringify(await getModel(database.db, model.id))).not.toContain('sk-secret-123');

    const stored = await storedKey(model.id);
    expect(stored).toMatch(/^v1:/);
    expect(stored).not.toContain('sk-secret-123');
    expect((await getModelWithKey(database.db, model.id, APP_SECRET)).apiKey).toBe('sk-secret-123');
    await expect(getModelWithKey(database.db, model.id, 'some-other-secret-abcdef')).rejects.toThrow(SecretDecryptionError);
  });

  it('updates: an omitted key is kept, a new one replaces it, null clears it', async () => {
    const model = await createModel(database.db, { ...baseInput, apiKey: 'sk-first' }, APP_SECRET);
    const renamed = await updateModel(database.db, model.id, { name: 'Renamed', supportsReasoning: true }, APP_SECRET);
    expect(renamed).toMatchObject({ name: 'Renamed', supportsReasoning: true, enabled: true, hasApiKey: true });
    expect((await getModelWithKey(database.db, model.id, APP_SECRET)).apiKey).toBe('sk-first');

    await updateModel(database.db, model.id, { apiKey: 'sk-second' }, APP_SECRET);
    expect((await getModelWithKey(database.db, model.id, APP_SECRET)).apiKey).toBe('sk-second');

    const cleared = await updateModel(database.db, model.id, { apiKey: null }, APP_SECRET);
    expect(cleared.hasApiKey).toBe(false);
    expect(await storedKey(model.id)).toBeNull();
    expect((await getModelWithKey(database.db, model.id, APP_SECRET)).apiKey).toBeNull();
    expect((await updateModel(database.db, model.id, {}, APP_SECRET)).name).toBe('Renamed');
  });

  it('accepts only http(s) base URLs and non-empty fields', async () => {
    for (const baseUrl of ['ftp://example.com', 'not a url', 'javascript:alert(1)']) {
      await expect(createModel(database.db, { ...baseInput, baseUrl }, APP_SECRET)).rejects.toThrow(ZodError);
    }
    await expect(createModel(database.db, { ...baseInput, modelId: ' ' }, APP_SECRET)).rejects.toThrow(ZodError);
    await expect(createModel(database.db, { ...baseInput, apiKey: '' }, APP_SECRET)).rejects.toThrow(ZodError);
    expect((await createModel(database.db, { ...baseInput, baseUrl: 'http://127.0.0.1:8080/v1' }, APP_SECRET)).hasApiKey).toBe(false);
  });

  it('filters by enabled, deletes, and answers NotFoundError for unknown ids', async () => {
    const disabled = await createModel(database.db, { ...baseInput, enabled: false }, APP_SECRET);
    expect((await listModels(database.db, { enabled: true })).map((model) => model.id)).not.toContain(disabled.id);
    expect((await listModels(database.db, { enabled: false })).map((model) => model.id)).toContain(disabled.id);
    await deleteModel(database.db, disabled.id);
    await expect(getModel(database.db, disabled.id)).rejects.toThrow(NotFoundError);
    await expect(deleteModel(database.db, disabled.id)).rejects.toThrow(NotFoundError);
    await expect(updateModel(database.db, 'mdl_missing', { name: 'x' }, APP_SECRET)).rejects.toThrow(NotFoundError);
    await expect(getModelWithKey(database.db, 'mdl_missing', APP_SECRET)).rejects.toThrow(NotFoundError);
  });
});

describe('seedModelFromEnv', () => {
  it('does nothing without LLM_BASE_URL and LLM_MODEL', async () => {
    expect(await seedModelFromEnv(database.db, {}, APP_SECRET)).toBeNull();
    expect(await seedModelFromEnv(database.db, { baseUrl: 'https://x.example/v1' }, APP_SECRET)).toBeNull();
    expect(await seedModelFromEnv(database.db, { model: 'm' }, APP_SECRET)).toBeNull();
  });

  it('creates the model once, matched by base URL and model id, with the key encrypted', async () => {
    const seed = { baseUrl: `https://seed-${randomBytes(3).toString('hex')}.example/v1`, apiKey: 'sk-seeded', model: 'seed-model' };
    const first = await seedModelFromEnv(database.db, seed, APP_SECRET);
    expect(first).toMatchObject({ created: true, model: { name: 'seed-model', baseUrl: seed.baseUrl, modelId: 'seed-model', hasApiKey: true } });
    const again = await seedModelFromEnv(database.db, { ...seed, apiKey: 'sk-changed' }, APP_SECRET);
    expect(again).toMatchObject({ created: false, model: { id: first!.model.id } });
    expect((await getModelWithKey(database.db, first!.model.id, APP_SECRET)).apiKey).toBe('sk-seeded');
    expect((await listModels(database.db)).filter((model) => model.baseUrl === seed.baseUrl)).toHaveLength(1);

    const otherModel = await seedModelFromEnv(database.db, { ...seed, model: 'seed-model-2', apiKey: '' }, APP_SECRET);
    expect(otherModel).toMatchObject({ created: true, model: { modelId: 'seed-model-2', hasApiKey: false } });
  });
});
