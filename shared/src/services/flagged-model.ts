import type { Database } from '../db/client';
import { loadAgentConfig } from './agent-config';
import { getModelWithKey } from './models';

/** Where a flagged model's requests go: its OpenAI-compatible base URL, its model id and its key. */
export type ModelEndpoint = { baseUrl: string; modelId: string; apiKey: string | null };

/** The flags that make one enabled model the endpoint of a service (embeddings, pictures). */
export type EndpointFlag = 'embedsText' | 'generatesImages';

/** The enabled model with `flag` among `models` (the flag is held by one model at a time). */
export function flaggedModel<Model extends { enabled: boolean } & Record<EndpointFlag, boolean>>(models: readonly Model[], flag: EndpointFlag): Model | undefined {
  return models.find((model) => model.enabled && model[flag]);
}

/**
 * The enabled model with `flag`, with its decrypted key (for the upstream call only), or null when
 * there is none. Read through the config cache.
 * @throws {SecretDecryptionError} when APP_SECRET is not the one the key was stored with.
 */
export async function findFlaggedEndpoint(db: Database, appSecret: string, flag: EndpointFlag): Promise<ModelEndpoint | null> {
  const row = flaggedModel((await loadAgentConfig(db)).models, flag);
  if (!row) return null;
  const model = await getModelWithKey(db, row.id, appSecret);
  return { baseUrl: model.baseUrl, modelId: model.modelId, apiKey: model.apiKey };
}
