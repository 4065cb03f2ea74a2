import type { SourceNumbering, ToolOutput } from '@agentq/shared/events';
import type { RunStatus } from '@agentq/shared/db';
import { executeTool, type AgentTool } from '@agentq/shared/services';
import { expandToolRows, type ExpandedTool, type ModelTool } from '@agentq/shared/tools';
import { jsonSchema, tool, type ModelMessage, type ToolSet } from 'ai';
import type { WorkerDeps } from '../processor';
import { toToolOutput } from './tool-output';

/** A tool the run offers, with its effective approval rule and approval timeout (null = agent/platform default). */
export type OfferedTool = { tool: AgentTool; needsApproval: boolean; approvalTimeoutMs?: number | null };

/**
 * One model tool of the run: a plain instance under its slug, or one discovered tool of an MCP/OpenAPI
 * instance under `<slug>__<name>`, which needs approval if the instance does or its type says so for it.
 */
export type OfferedModelTool = OfferedTool & { name: string; call: ExpandedTool | null; description: string; inputSchema: Record<string, unknown> };

/** The run's instances as model tools; instances whose config no longer parses are left out. */
export function expandOfferedTools(offered: OfferedTool[]): OfferedModelTool[] {
  const byRow = new Map(offered.map((entry) => [entry.tool, entry]));
  return expandToolRows(offered.map((entry) => entry.tool)).map((modelTool: ModelTool<AgentTool>) => {
    const entry = byRow.get(modelTool.row)!;
    return { ...entry, name: modelTool.name, call: modelTool.call, description: modelTool.description, inputSchema: modelTool.inputSchema, needsApproval: entry.needsApproval || (modelTool.call?.needsApproval ?? false) };
  });
}

/** What tool types may use from the worker (the document tool's database, MCP's stdio allow-list, the key that opens the embedding model's API key). */
export function toolServices(deps: WorkerDeps): Record<string, unknown> {
  return { db: deps.db, mcpStdioCommands: deps.config.mcpStdioCommands ?? [], appSecret: deps.config.appSecret };
}

export type ToolCallContext = {
  runId: string;
  userId: string;
  sessionId: string | null;
  signal: AbortSignal;
  /**
   * A tool boundary: the cancel check before a call runs, given the run's status as the journal's
   * statement read it (undefined: not read, look it up). Throwing stops the call.
   */
  beforeRun: (runStatus: RunStatus | null | undefined) => Promise<void>;
  /** A call failed in a way the model must not see as a tool error (database down, worker stopping): the run loop rethrows it. */
  onFatal: (error: unknown) => void;
  /** Where a call with no effect hands its log write, which the run's later output waits for (executeTool's `deferLog`). */
  deferLog?: (written: Promise<void>) => void;
  /** The run's claim, when the model call went out before it returned: no call runs before it. */
  ready?: Promise<unknown>;
  /** The run stream's callShown: a call the model just made runs once it and the text before it are stored. */
  callShown?: (toolCallId: string, signal: AbortSignal) => Promise<void>;
  /** The run's citation numbers, shared by its source tools (source-numbering.ts). */
  sources?: SourceNumbering;
};

type ContentPart = { type: string; toolCallId?: string };

/** The ids of the tool calls (or tool results) in `history`. */
export function toolCallIdsIn(history: ModelMessage[], type: 'tool-call' | 'tool-result'): Set<string> {
  return new Set(
    history
      .flatMap((message) => (Array.isArray(message.content) ? (message.content as ContentPart[]) : []))
      .filter((part) => part.type === type && part.toolCallId)
      .map((part) => part.toolCallId!),
  );
}

/** Runs one tool call effectively-once, keyed by (run id, tool call id), and shapes what the model reads. */
export async function runToolCall(
  deps: WorkerDeps,
  offered: OfferedModelTool,
  toolCallId: string,
  input: unknown,
  context: Omit<ToolCallContext, 'beforeRun' | 'onFatal'> & Partial<Pick<ToolCallContext, 'beforeRun'>>,
): Promise<ToolOutput> {
  const result = await executeTool(deps.db, {
    beforeRun: context.beforeRun,
    deferLog: context.deferLog,
    tool: offered.tool,
    input,
    call: offered.call ? { name: offered.name, tool: offered.call } : null,
    appSecret: deps.config.appSecret,
    context: {
      userId: context.userId,
      runId: context.runId,
      sessionId: context.sessionId,
      toolCallId,
      signal: context.signal,
      allowPrivateNetworks: deps.allowPrivateNetworks,
      services: toolServices(deps),
      sources: context.sources,
    },
  });
  return toToolOutput(offered.name, result);
}

/** The AI SDK tool set for a run: one tool per offered model tool, named and described as expandOfferedTools says. */
export function buildToolSet(deps: WorkerDeps, offered: OfferedModelTool[], context: ToolCallContext): ToolSet {
  const tools: ToolSet = {};
  for (const entry of offered) {
    tools[entry.name] = tool({
      description: entry.description,
      inputSchema: jsonSchema(entry.inputSchema as Parameters<typeof jsonSchema>[0]),
      execute: async (input: unknown, options: { toolCallId: string; messages: ModelMessage[]; abortSignal?: AbortSignal }) => {
        const signal = options.abortSignal ? AbortSignal.any([options.abortSignal, context.signal]) : context.signal;
        try {
          if (context.ready) await context.ready;
          // The SDK runs a call as the model's response ends, while the run's output may not have read up to it
          // yet. A call already in the step's input (an approved one) was stored with its checkpoint.
          if (context.callShown && !toolCallIdsIn(options.messages, 'tool-call').has(options.toolCallId)) await context.callShown(options.toolCallId, signal);
          return await runToolCall(deps, entry, options.toolCallId, input, { ...context, signal });
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
