import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { modelFetch } from './model-fetch';

type ModelSettings = { baseUrl: string; modelId: string; apiKey: string | null };

/** Providers are stateless between calls, so runs of the same model share one instead of building it per run. */
const models = new Map<string, LanguageModel>();
const MAX_MODELS = 64;

/** An OpenAI-compatible chat model for a `llm_models` row (settings changed = another model). */
export function createLanguageModel(model: ModelSettings): LanguageModel {
  const key = JSON.stringify([model.baseUrl, model.modelId, model.apiKey]);
  let languageModel = models.get(key);
  if (!languageModel) {
    const provider = createOpenAICompatible({ name: 'agentq', baseURL: model.baseUrl, apiKey: model.apiKey ?? undefined, includeUsage: true, fetch: modelFetch });
    languageModel = provider.chatModel(model.modelId);
    if (models.size >= MAX_MODELS) models.delete(models.keys().next().value!);
    models.set(key, languageModel);
  }
  return languageModel;
}
