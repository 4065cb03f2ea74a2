import type { AgentTool } from '#lib/types.ts';

/** One tool an agent offers; `needsApproval: null` inherits the tool's own flag. */
export type AgentToolAssociation = {
  toolId: string;
  needsApproval: boolean | null;
  tool: Pick<AgentTool, 'id' | 'name' | 'slug' | 'type' | 'enabled'>;
};

/** An agent as `/api/agents` returns it. */
export type Agent = {
  id: string;
  name: string;
  systemPrompt: string;
  modelId: string | null;
  maxSteps: number;
  approvalTimeoutMs: number | null;
  isDefault: boolean;
  /** Load the user's memory documents into the system prompt at run start. */
  loadMemory: boolean;
  memoryTokenBudget: number;
  model: { id: string; name: string } | null;
  tools: AgentToolAssociation[];
  createdAt: string;
  updatedAt: string;
};

/** The model fields the agent editor needs from `GET /api/models`. */
export type ModelOption = { id: string; name: string; modelId: string; enabled: boolean };
