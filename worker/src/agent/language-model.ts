import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';

/** An OpenAI-compatible chat model for a `llm_models` row. */
export function createLanguageModel(model: { name: string; baseUrl: string; modelId: string; apiKey: string | null }): LanguageModel {
  const provider = createOpenAICompatible({
    name: 'agentq',
    baseURL: model.baseUrl,
    apiKey: model.apiKey ?? undefined,
    includeUsage: true,
  });
  return provider.chatModel(model.modelId);
}
