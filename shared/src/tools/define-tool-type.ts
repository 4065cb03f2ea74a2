import type { z } from 'zod';
import type { SourceNumbering } from '../events/sources';

/** What every execution returns: tool failures are values the model reads, never exceptions. */
export type ToolResult = {
  success: boolean;
  data?: unknown;
  error?: string;
  /**
   * `fixable`: the failure lies in the input the model wrote (a program that threw, ran too long):
   * the model is invited to correct it and call again, where any other failure tells it to stop.
   */
  metadata: { durationMs: number; fixable?: boolean; [key: string]: unknown };
};

/**
 * What a call may do to the world, which decides whether a call a crash interrupted may run again:
 * `none` reads only, `idempotent` may repeat with the same outcome (RFC 9110 §9.2.2), anything else is
 * `non-idempotent` and is never blindly repeated.
 */
export const TOOL_EFFECTS = ['none', 'idempotent', 'non-idempotent'] as const;
export type ToolEffect = (typeof TOOL_EFFECTS)[number];

/** A type's effect rule: every effect its calls can have, one line saying which, and the rule per call. */
export type ToolEffectRule<Config = any, Input = any> = {
  /** Every effect a call of this type can have (shown in GET /api/tool-types and the admin page). */
  possible: readonly [ToolEffect, ...ToolEffect[]];
  summary: string;
  /** The effect of one call; required when `possible` has more than one entry. */
  of?: (input: Input, config: Config) => ToolEffect;
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
  /** `<runId>:<toolCallId>`, identical on every attempt of one call: sent where the protocol dedupes (HTTP Idempotency-Key). */
  idempotencyKey?: string | null;
  /** The effect of this call as the type's rule decided it. */
  effect?: ToolEffect;
  /** 1 on the first attempt; higher when a resumed run re-sends the call. */
  attempt?: number;
  /** Operator escape hatch (FETCH_ALLOW_PRIVATE_NETWORKS): lets tests reach loopback servers. */
  allowPrivateNetworks: boolean;
  /** Dependencies a type needs from outside (e.g. the database for `document`), keyed by name. */
  services: Record<string, unknown>;
  /**
   * Where a type that returns sources (knowledge passages, search results, fetched pages) takes their
   * citation numbers, so `[n]` is unique across one answer. Absent outside a chat run: number from 1.
   */
  sources?: SourceNumbering;
  /** The instance's decrypted secrets, parsed with the type's `secretsSchema` (empty when it has none). */
  secrets?: Record<string, unknown>;
  /** For a type that expands into several model tools: which discovered tool this call is for. */
  call?: DiscoveredTool;
};

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

/** A config field's form label and help in another language; `fields` for an object field's properties. */
export type FieldText = { title: string; description: string; fields?: Record<string, FieldText> };

/**
 * A type's admin-facing texts in another language: its label, summary, effect rule and config form.
 * English is the type's own (`label`, `summary`, `effect.summary`, each config field's `.describe()`);
 * what the model reads (`describe`, the input schema) stays English.
 */
export type ToolTypeText = { label: string; summary: string; effect: string; config: Record<string, FieldText> };

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
  /** What a call does to the world; a type without a rule counts as non-idempotent. */
  effect?: ToolEffectRule<Config, Input>;
  /**
   * The type writes only to agentq's own database through `context.services.db`: the runner then
   * executes it inside the transaction that completes its journal row, so the write is exactly-once.
   */
  transactional?: boolean;
  /** The type reads or writes the user's memory (`document`): a temporary chat's runs are not offered it. */
  usesMemory?: boolean;
  /** The admin texts in other languages, by locale (`zh`), for the tools page and its config form. */
  translations?: Record<string, ToolTypeText>;
  /** Per-input approval rule, e.g. the document tool's `approvalRequiredActions`. */
  needsApproval?: (input: Input, config: Config) => boolean;
  /**
   * Write-only values (auth headers, API keys): sent as `secrets` on create/update, stored encrypted with
   * APP_SECRET, never returned by the API, handed decrypted to `execute` and `discover` as `context.secrets`.
   */
  secretsSchema?: z.ZodType<Record<string, unknown>, any>;
  /**
   * What an instance's config requires of its secrets (a provider that needs an API key), checked on create
   * and update once both parsed. Paths are relative to the secrets: the API answers 400 with `secrets.<path>`.
   * @example checkSecrets: (config, secrets) => (config.auth === 'bearer' && !secrets.token ? [{ path: ['token'], message: 'Bearer auth needs a token' }] : [])
   */
  checkSecrets?: (config: Config, secrets: Record<string, unknown>) => { path: PropertyKey[]; message: string }[];
  /**
   * What an instance's config requires of the database as the admin saving it (the bases a `knowledge`
   * tool names must be theirs), checked on create and update after the schema. `previousConfig` is the
   * stored config on an update. Paths are relative to the config: the API answers 400 with `config.<path>`.
   */
  checkConfig?: (config: Config, context: { db: unknown; actorId: string; previousConfig?: Config }) => Promise<{ path: PropertyKey[]; message: string }[]>;
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

/** The effect of one call: the type's rule, or non-idempotent when the type has none or the rule cannot tell. */
export function effectOf(toolType: Pick<ToolType, 'effect'>, input: unknown, config: unknown): ToolEffect {
  const rule = toolType.effect;
  if (!rule) return 'non-idempotent';
  if (rule.of) {
    try {
      return rule.of(input, config);
    } catch {
      return 'non-idempotent';
    }
  }
  return rule.possible.length === 1 ? rule.possible[0] : 'non-idempotent';
}
