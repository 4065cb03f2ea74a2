import type { z } from 'zod';

/** What every execution returns: tool failures are values the model reads, never exceptions. */
export type ToolResult = {
  success: boolean;
  data?: unknown;
  error?: string;
  metadata: { durationMs: number; [key: string]: unknown };
};

/** Services a tool may use while it runs; supplied by the worker (chat) or the tool-exec processor. */
export type ToolContext = {
  /** The user the run belongs to; null for system executions. */
  userId: string | null;
  runId: string | null;
  sessionId: string | null;
  toolCallId: string | null;
  /** Aborted when the run is cancelled or the tool times out. */
  signal: AbortSignal;
  /** Operator escape hatch (FETCH_ALLOW_PRIVATE_NETWORKS): lets tests reach loopback servers. */
  allowPrivateNetworks: boolean;
  /** Dependencies a type needs from outside (e.g. the database for `document`), keyed by name. */
  services: Record<string, unknown>;
};

export type ToolType<Name extends string = string, Config = any, Input = any> = {
  /** kebab-case identifier, stored in `agent_tools.type`. */
  type: Name;
  label: string;
  /** One line for the admin UI. */
  summary: string;
  configSchema: z.ZodType<Config, any>;
  inputSchema: z.ZodType<Input, any>;
  /** The description the LLM sees, built from the instance's config. */
  describe: (config: Config) => string;
  /** Upper bound for one execution; the runner aborts after it (default 30 s). */
  timeoutMs?: (config: Config) => number;
  /** Per-input approval rule, e.g. the document tool's `approvalRequiredActions`. */
  needsApproval?: (input: Input, config: Config) => boolean;
  execute: (input: Input, config: Config, context: ToolContext) => Promise<ToolResult>;
  /** Starts process-wide resources ahead of the first call (a worker calls it at start), so the first call is not slower. */
  warm?: () => Promise<void>;
  /** Releases process-wide resources (child processes, pools) when a worker shuts down. */
  dispose?: () => Promise<void>;
};

/**
 * Identity helper that exists for type inference: a tool type is one value in one folder.
 * @example
 * export const calculatorToolType = defineToolType({ type: 'calculator', label: 'Calculator', ... });
 */
export function defineToolType<const Name extends string, Config, Input>(
  definition: ToolType<Name, Config, Input>,
): ToolType<Name, Config, Input> {
  return definition;
}
