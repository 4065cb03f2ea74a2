/** The signed-in user as `GET /api/auth/me` and `POST /api/auth/login` return it. */
export type User = {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'user';
};

/** A JSON Schema as `z.toJSONSchema` writes it (draft 2020-12); only the keywords the UI reads are typed. */
export type JsonSchema = {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  examples?: unknown[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  [keyword: string]: unknown;
};

/** One registered tool type as `GET /api/tool-types` lists it. */
export type ToolTypeInfo = {
  type: string;
  label: string;
  description: string;
  configSchema: JsonSchema;
  inputSchema: JsonSchema;
  /** The config a new tool of this type starts from. */
  defaults: Record<string, unknown>;
  /** What a call can do to the world (decides whether a call a crash interrupted may run again). */
  effect: { possible: ('none' | 'idempotent' | 'non-idempotent')[]; summary: string };
  /** Write-only values the type takes beside its config (MCP headers, OpenAPI token). */
  secretsSchema?: JsonSchema;
  /** Instances ask a server what they offer (MCP, OpenAPI) and expand into several model tools. */
  discovers?: boolean;
};

/** One tool an MCP server or OpenAPI document offers, as the admin sees it. */
export type DiscoveredTool = {
  name: string;
  /** `<slug>__<name>`, the name the model calls; null when the config does not offer it. */
  modelName: string | null;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  annotations?: Record<string, unknown>;
  effect: 'none' | 'idempotent' | 'non-idempotent';
  allowed: boolean;
  needsApproval: boolean;
};

/** A tool instance (`/api/agent-tools`). */
export type AgentTool = {
  id: string;
  name: string;
  slug: string;
  description: string;
  type: string;
  config: Record<string, unknown>;
  enabled: boolean;
  needsApproval: boolean;
  approvalTimeoutMs: number | null;
  sortOrder: number;
  /** A non-idempotent call a crash interrupted: reported to the model (never) or re-sent with the same Idempotency-Key. */
  retryInterrupted: 'never' | 'with-idempotency-key';
  createdAt: string;
  updatedAt: string;
  /** Only on `GET /api/agent-tools/:id`: the input JSON Schema the model sees. */
  inputSchema?: JsonSchema;
  /** Dotted names of the secrets that are set (values are write-only). */
  secretsSet?: string[];
  /** MCP/OpenAPI: the last good snapshot of what the server offers, and why the last refresh failed. */
  discovery?: { discoveredAt: string; server?: { name?: string; version?: string; transport?: string; url?: string } } | null;
  discoveryError?: string | null;
  discoveredTools?: DiscoveredTool[];
};

/** What one execution returns; a failure is a value with `error`, not an HTTP error. */
export type ToolResult = {
  success: boolean;
  data?: unknown;
  error?: string;
  metadata: { durationMs: number; statusCode?: number; responseSize?: number; [key: string]: unknown };
};

export type ToolLogStatus = 'success' | 'error' | 'timeout';

/** One row of `GET /api/tool-logs`. */
export type ToolLog = {
  id: number | string;
  toolId: string;
  toolSlug: string;
  userId: string | null;
  runId: string | null;
  toolCallId: string | null;
  input: unknown;
  output: string | null;
  status: ToolLogStatus;
  errorMessage: string | null;
  durationMs: number;
  createdAt: string;
};

/** A page of a list endpoint. */
export type ListPage<T> = { items: T[]; total?: number; nextCursor?: string | null };
