import type { AgentTool, ChosenKnowledgeBase } from '@agentq/shared/services';
import { expandOfferedTools, type OfferedModelTool } from './build-tool-set';

/** The model's name for the search over the bases chosen for a question (`_2`… when an admin's tool already has it). */
export const CHOSEN_KNOWLEDGE_TOOL = 'search_chosen_knowledge';

/** Stands in for a tool row in logs and the tool-call journal; no instance has it (ids have a `tool_` prefix). */
export const CHOSEN_KNOWLEDGE_TOOL_ID = 'chosen-knowledge';

/**
 * The run's search over the knowledge bases the user chose for its question, as a `knowledge` instance
 * that exists only for the run: the knowledge type's executor and passage format (citations included),
 * bound to exactly these bases and nothing the user may read besides. Offered even when the agent has
 * no tools or the run has tools off: the user asked for these bases by name. Never needs approval: it
 * only reads what the user may read.
 */
export function chosenKnowledgeTool(bases: readonly ChosenKnowledgeBase[], offered: readonly OfferedModelTool[]): OfferedModelTool {
  const taken = new Set(offered.map((entry) => entry.name));
  let name = CHOSEN_KNOWLEDGE_TOOL;
  for (let counter = 2; taken.has(name); counter += 1) name = `${CHOSEN_KNOWLEDGE_TOOL}_${counter}`;
  const now = new Date(0);
  const row: AgentTool = {
    id: CHOSEN_KNOWLEDGE_TOOL_ID,
    name: 'Chosen knowledge',
    slug: name,
    description: `The user chose these knowledge bases for this question: ${bases.map((base) => `"${base.name}"`).join(', ')}. Search them before answering it.`,
    type: 'knowledge',
    config: { knowledgeBaseIds: bases.map((base) => base.id), userBases: 'none' },
    enabled: true,
    needsApproval: false,
    approvalTimeoutMs: null,
    sortOrder: 0,
    discovery: null,
    discoveryError: null,
    secretsEncrypted: null,
    retryInterrupted: 'never',
    createdAt: now,
    updatedAt: now,
  };
  return expandOfferedTools([{ tool: row, needsApproval: false }])[0]!;
}
