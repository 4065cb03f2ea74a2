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
  /** The instance's decrypted secrets, parsed with the type's `secretsSchema` (empty when it has none). */
  secrets?: Record<string, unknown>;
  /** For a type that expands into several model tools: which discovered tool this call is for. */
  call?: DiscoveredTool;
};

/**
 * What running a tool does to the outside world, so a retry after a crash knows whether it may
 * repeat the call: `none` (read-only), `idempotent` (same effect twice), `non-idempotent`.
 */
export type ToolEffect = 'none' | 'idempotent' | 'non-idempotent';

/** One tool found on a server (an MCP tool, an OpenAPI operation), stored in the instance's snapshot. */
export type DiscoveredTool = {
  /** The server's own name for it (MCP tool name, OpenAPI operationId). */
  name: string;
  title?: string;
  description: string;
  /** JSON Schema of its arguments (an object schema). */
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  effect: ToolEffect;
  /** What the type needs to call it later (e.g. an operation's method, path and parameter locations). */
  call?: Record<string, unknown>;
};

/** The snapshot a discovering type stores on its instance: the last good answer of its server. */
export type ToolDiscovery = {
  tools: DiscoveredTool[];
  discoveredAt: string;
  server?: { name?: string; version?: string; transport?: string; url?: string };
};

/** A discovered tool the instance offers to the model, after the type's allow-list and approval list. */
export type ExpandedTool = DiscoveredTool & { needsApproval: boolean };

/** What `discover` may use: it runs in the API (create, update, refresh), never in the model loop. */
export type DiscoverContext = {
  signal: AbortSignal;
  allowPrivateNetworks: boolean;
  secrets: Record<string, unknown>;
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
  /** Side effects of a call (default `non-idempotent`); expanding types declare it per discovered tool. */
  effect?: ToolEffect | ((input: Input, config: Config) => ToolEffect);
  /**
   * Write-only values (auth headers, API keys): sent as `secrets` on create/update, stored encrypted with
   * APP_SECRET, never returned by the API, handed decrypted to `execute` and `discover` as `context.secrets`.
   */
  secretsSchema?: z.ZodType<Record<string, unknown>, any>;
  /**
   * Asks the instance's server what it offers (MCP `tools/list`, an OpenAPI document). The API stores the
   * result on the row on create, update and refresh; a failure keeps the previous snapshot.
   */
  discover?: (config: Config, context: DiscoverContext) => Promise<ToolDiscovery>;
  /**
   * Turns one instance into several model tools, named `<slug>__<name>`: the discovered tools the config
   * allows, each with its approval rule. `execute` then receives the chosen one as `context.call`.
   * @example expand: (config, discovery) => (discovery?.tools ?? []).map((tool) => ({ ...tool, needsApproval: false }))
   */
  expand?: (config: Config, discovery: ToolDiscovery | null) => ExpandedTool[];
  execute: (input: Input, config: Config, context: ToolContext) => Promise<ToolResult>;
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
