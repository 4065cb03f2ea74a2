import type { ToolOutput } from '@agentq/shared/events';
import { executeTool, type AgentTool } from '@agentq/shared/services';
import { getToolType, inputJsonSchema } from '@agentq/shared/tools';
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { z } from 'zod';
import type { WorkerDeps } from '../processor';
import { toToolOutput } from './tool-output';

/** A tool the run offers, with its effective approval rule and approval timeout (null = agent/platform default). */
export type OfferedTool = { tool: AgentTool; needsApproval: boolean; approvalTimeoutMs?: number | null };

export type ToolCallContext = {
  runId: string;
  userId: string;
  sessionId: string | null;
  signal: AbortSignal;
  /** A tool boundary: checks the cancel flag before a call starts. */
  beforeExecute: (call: { toolCallId: string; toolName: string; input: unknown }) => Promise<void>;
  /** A call failed in a way the model must not see as a tool error (database down, worker stopping): the run loop rethrows it. */
  onFatal: (error: unknown) => void;
};

/** Runs one tool call effectively-once, keyed by (run id, tool call id), and shapes what the model reads. */
export async function runToolCall(deps: WorkerDeps, offered: AgentTool, toolCallId: string, input: unknown, context: Omit<ToolCallContext, 'beforeExecute' | 'onFatal'>): Promise<ToolOutput> {
  const result = await executeTool(deps.db, {
    tool: offered,
    input,
    context: {
      userId: context.userId,
      runId: context.runId,
      sessionId: context.sessionId,
      toolCallId,
      signal: context.signal,
      allowPrivateNetworks: deps.allowPrivateNetworks,
      services: { db: deps.db },
    },
  });
  return toToolOutput(offered.slug, result);
}

/** The AI SDK tool set for a run: one tool per offered instance, named by slug, described from its config. */
export function buildToolSet(deps: WorkerDeps, offered: OfferedTool[], context: ToolCallContext): ToolSet {
  const tools: ToolSet = {};
  for (const { tool: instance } of offered) {
    const toolType = getToolType(instance.type);
    const config = (toolType.configSchema as z.ZodType).safeParse(instance.config);
    if (!config.success) {
      deps.logger.warn({ tool: instance.slug, runId: context.runId }, 'tool config no longer valid; not offered to the model');
      continue;
    }
    const description = [instance.description, toolType.describe(config.data)].filter(Boolean).join('\n\n');
    tools[instance.slug] = tool({
      description,
      inputSchema: jsonSchema(inputJsonSchema(toolType) as Parameters<typeof jsonSchema>[0]),
      execute: async (input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal }) => {
        await context.beforeExecute({ toolCallId: options.toolCallId, toolName: instance.slug, input });
        const signal = options.abortSignal ? AbortSignal.any([options.abortSignal, context.signal]) : context.signal;
        try {
          return await runToolCall(deps, instance, options.toolCallId, input, { ...context, signal });
        } catch (error) {
          // The AI SDK would turn a throw into tool-error text and lose it: hand it to the run loop instead.
          context.onFatal(error);
          throw error;
        }
      },
      toModelOutput: ({ output }: { output: ToolOutput }) => ({ type: 'text', value: output.text }),
    });
  }
  return tools;
}
