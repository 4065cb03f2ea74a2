/** A model as `/api/models` returns it: the API key is write-only, only `hasApiKey` comes back. */
export type LlmModel = {
  id: string;
  name: string;
  baseUrl: string;
  modelId: string;
  supportsReasoning: boolean;
  enabled: boolean;
  /** New chats use it unless the chat or its agent names another model. */
  isDefault: boolean;
  hasApiKey: boolean;
  createdAt: string;
  updatedAt: string;
};
