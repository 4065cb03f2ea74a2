/** A model as `/api/models` returns it: the API key is write-only, only `hasApiKey` comes back. */
export type LlmModel = {
  id: string;
  name: string;
  baseUrl: string;
  modelId: string;
  supportsReasoning: boolean;
  enabled: boolean;
  hasApiKey: boolean;
  createdAt: string;
  updatedAt: string;
};
