import type { RunCheckpoint } from '@agentq/shared/db';
import {
  getAgent,
  getModelWithKey,
  listTools,
  loadRunHistory,
  NotFoundError,
  readableKnowledgeBasesAmong,
  resolveAgentTools,
  runHistory,
  sessionGrants,
  type Agent,
  type ChatRunContext,
  type LlmModelWithKey,
  type Run,
} from '@agentq/shared/services';
import { toolTypeUsesMemory } from '@agentq/shared/tools';
import type { UIMessage } from 'ai';
import type { WorkerDeps } from '../processor';
import { labelAttachedFiles } from './attached-files';
import { chosenKnowledgeTool } from './chosen-knowledge';
import { expandOfferedTools, type OfferedModelTool, type OfferedTool } from './build-tool-set';

export type RunOptions = {
  enableTools?: boolean;
  enableThinking?: boolean;
  systemPrompt?: string;
  temperature?: number;
  maxOutputTokens?: number;
  /** The user's custom instructions when the run was asked for; absent for a user without any. */
  userInstructions?: string;
  /** The run is in a temporary chat: it neither reads nor writes memory (no memory in its prompt, no tool that uses memory). */
  temporary?: boolean;
  /** Knowledge bases the user chose for the question (the composer's `#`); the run offers a search over exactly these. */
  knowledgeBaseIds?: string[];
};

/** Everything a chat run needs before its first model call. */
export type RunSetup = {
  model: LlmModelWithKey | null;
  /** The agent's settings (step limit, instructions, approval timeout); null for no agent or a deleted one. */
  agent: Agent | null;
  /** Model tools: MCP/OpenAPI instances expanded into one per discovered tool (`<slug>__<name>`). */
  offered: OfferedModelTool[];
  /** Tools the user allowed for the whole session ("remember for this session"). */
  grants: Set<string>;
  /** The session's messages as UI messages (the new user message included), unless the checkpoint has the history. */
  history: Pick<UIMessage, 'id' | 'role' | 'parts'>[] | null;
};

const orNull = <T>(promise: Promise<T>): Promise<T | null> =>
  promise.catch((error: unknown) => {
    if (error instanceof NotFoundError) return null;
    throw error;
  });

/**
 * The tools a run offers: the agent's associations (with approval overrides), or every enabled tool
 * for the default agent; a temporary chat's run without the tools that use memory.
 */
async function offeredTools(deps: WorkerDeps, run: Run): Promise<OfferedTool[]> {
  const resolved = run.agentId ? await orNull(resolveAgentTools(deps.db, run.agentId)) : null;
  // No agent, or it was deleted meanwhile: behave like the default agent.
  const offered = resolved ?? (await listTools(deps.db, { enabled: true })).map((tool) => ({ tool, needsApproval: tool.needsApproval }));
  return (run.options as RunOptions).temporary ? offered.filter((entry) => !toolTypeUsesMemory(entry.tool.type)) : offered;
}

/**
 * Loads model, agent, tools, grants and history in parallel: they are independent, so the path
 * before the model call costs one round trip instead of five. Goes through the service loaders,
 * so caches under them apply. `claimed` supplies what the claim read with the run.
 */
export async function loadRunSetup(deps: WorkerDeps, run: Run, checkpoint: RunCheckpoint | null, claimed?: ChatRunContext): Promise<RunSetup> {
  const options = run.options as RunOptions;
  const [model, agent, offered, grants, history, chosen] = await Promise.all([
    run.modelId ? orNull(getModelWithKey(deps.db, run.modelId, deps.config.appSecret)) : null,
    run.agentId ? orNull(getAgent(deps.db, run.agentId)) : null,
    options.enableTools === false ? [] : offeredTools(deps, run).then(expandOfferedTools),
    claimed?.grants ?? sessionGrants(deps.db, run.sessionId!),
    checkpoint?.messages.length ? null : sessionHistory(deps, run, claimed),
    // Only a run whose question names bases reads them again: sharing may have ended since the send.
    options.knowledgeBaseIds?.length ? readableKnowledgeBasesAmong(deps.db, run.userId, options.knowledgeBaseIds) : null,
  ]);
  const seesImages = model?.supportsImages ?? true;
  return { model, agent, offered: chosen?.length ? [...offered, chosenKnowledgeTool(chosen, offered)] : offered, grants, history: history?.map((message) => (message.role === 'user' ? { ...message, parts: labelAttachedFiles(message.parts, seesImages) } : message)) ?? null };
}

/** The run's branch of the session down to the question it answers; this run's own assistant message excluded (it is being written). */
async function sessionHistory(deps: WorkerDeps, run: Run, claimed?: ChatRunContext) {
  const rows = claimed ? runHistory(claimed.messages, run) : await loadRunHistory(deps.db, run);
  return rows.map((row) => ({ id: row.id, role: row.role, parts: row.parts as UIMessage['parts'] }));
}
