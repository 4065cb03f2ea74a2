import type { Database } from '../db/client';
import { loadAgentConfig } from './agent-config';
import { getModelWithKey } from './models';

/** Where pictures come from: a model row's OpenAI-compatible base URL, its model id and its key. */
export type ImageEndpoint = { baseUrl: string; modelId: string; apiKey: string | null };

/**
 * The enabled model flagged "Generates images", with its decrypted key (for the upstream call only),
 * or null when there is none. Read through the config cache.
 * @throws {SecretDecryptionError} when APP_SECRET is not the one the key was stored with.
 */
export async function findImageModel(db: Database, appSecret: string): Promise<ImageEndpoint | null> {
  const { models } = await loadAgentConfig(db);
  const row = models.find((model) => model.enabled && model.generatesImages);
  if (!row) return null;
  const model = await getModelWithKey(db, row.id, appSecret);
  return { baseUrl: model.baseUrl, modelId: model.modelId, apiKey: model.apiKey };
}
