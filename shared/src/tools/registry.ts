import { z } from 'zod';
import { calculatorToolType } from './calculator';
import { codeToolType } from './code';
import { datetimeToolType } from './datetime';
import { documentToolType } from './document';
import type { ToolType } from './define-tool-type';
import { NoSuchToolTypeError } from './errors';
import { fetchToolType } from './fetch';
import { imageGenerationToolType } from './image-generation';
import { knowledgeToolType } from './knowledge';
import { mcpToolType } from './mcp';
import { openApiToolType } from './openapi';
import { webSearchToolType } from './web-search';

/** Every tool type agentq knows. Adding a type is one folder and one entry here. */
export const toolTypes = [fetchToolType, documentToolType, calculatorToolType, datetimeToolType, codeToolType, mcpToolType, openApiToolType, webSearchToolType, knowledgeToolType, imageGenerationToolType] as const;

export type RegisteredToolType = (typeof toolTypes)[number];
export type ToolTypeName = RegisteredToolType['type'];
export const TOOL_TYPE_NAMES = toolTypes.map((toolType) => toolType.type) as [ToolTypeName, ...ToolTypeName[]];

const byName = new Map<string, ToolType>(toolTypes.map((toolType) => [toolType.type, toolType as ToolType]));

/** The registered type, or NoSuchToolTypeError naming the available ones. */
export function getToolType(type: string): ToolType {
  const toolType = byName.get(type);
  if (!toolType) throw new NoSuchToolTypeError(type, TOOL_TYPE_NAMES);
  return toolType;
}

export function isToolTypeName(type: string): type is ToolTypeName {
  return byName.has(type);
}

/** Whether tools of `type` read or write the user's memory (ToolType `usesMemory`); false for an unknown type. */
export function toolTypeUsesMemory(type: string): boolean {
  return byName.get(type)?.usesMemory === true;
}

/**
 * `{ type, config }` validated against the registry: a discriminated union derived from `toolTypes`,
 * so config issues come back with paths under `config`.
 */
export const toolTypeConfigSchema = z.discriminatedUnion(
  'type',
  toolTypes.map((toolType) => z.object({ type: z.literal(toolType.type), config: (toolType.configSchema as z.ZodType).default({}) })) as unknown as [
    z.ZodObject<{ type: z.ZodLiteral<ToolTypeName>; config: z.ZodType<Record<string, unknown>> }>,
  ],
  { error: () => `Unknown tool type. Available: ${TOOL_TYPE_NAMES.join(', ')}` },
);

const JSON_SCHEMA_OPTIONS = { io: 'input', unrepresentable: 'any' } as const;

/** JSON Schema of a type's config (what the admin form is generated from). */
export function configJsonSchema(toolType: ToolType) {
  return z.toJSONSchema(toolType.configSchema as z.ZodType, JSON_SCHEMA_OPTIONS);
}

/**
 * JSON Schema of a type's input (what the LLM and the execute form see). Function-calling APIs
 * require an object at the top, so a union of objects gets `type: "object"` beside its `oneOf`.
 */
export function inputJsonSchema(toolType: ToolType) {
  // A type's schema never changes while the process runs, and every run offering the type asks for it.
  let cached = inputSchemas.get(toolType);
  if (!cached) {
    cached = toObjectSchema(z.toJSONSchema(toolType.inputSchema as z.ZodType, JSON_SCHEMA_OPTIONS));
    inputSchemas.set(toolType, cached);
  }
  return cached;
}
function toObjectSchema(schema: z.core.JSONSchema.BaseSchema) {
  return schema.type === undefined && (schema.oneOf || schema.anyOf) ? { type: 'object' as const, ...schema } : schema;
}
const inputSchemas = new WeakMap<ToolType, ReturnType<typeof toObjectSchema>>();

/** Starts what tool types hold process-wide (e.g. the calculator's sandbox processes) before the first call. */
export async function warmToolTypes(): Promise<void> {
  await Promise.allSettled(toolTypes.map((toolType) => (toolType as ToolType).warm?.()));
}

/** Releases what tool types hold process-wide (e.g. the calculator's child process). */
export async function disposeToolTypes(): Promise<void> {
  await Promise.allSettled(toolTypes.map((toolType) => (toolType as ToolType).dispose?.()));
}

/** What `GET /api/tool-types` lists for every registered type. */
export function describeToolTypes() {
  return toolTypes.map((toolType) => ({
    type: toolType.type,
    label: toolType.label,
    description: toolType.summary,
    configSchema: configJsonSchema(toolType as ToolType),
    inputSchema: inputJsonSchema(toolType as ToolType),
    defaults: (toolType.configSchema as z.ZodType).parse({}) as Record<string, unknown>,
    /** Write-only values (auth headers, tokens) a type takes beside its config. */
    ...((toolType as ToolType).secretsSchema && { secretsSchema: z.toJSONSchema((toolType as ToolType).secretsSchema as z.ZodType, JSON_SCHEMA_OPTIONS) }),
    /** Whether instances ask a server what they offer (MCP, OpenAPI) and expand into several model tools. */
    discovers: (toolType as ToolType).discover !== undefined,
    effect: { possible: [...((toolType as ToolType).effect?.possible ?? ['non-idempotent'])], summary: (toolType as ToolType).effect?.summary ?? 'Unknown effect: treated as non-idempotent.' },
    /** The admin texts in other languages, by locale: the web shows them in place of the English above. */
    translations: (toolType as ToolType).translations ?? {},
  }));
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** How long one execution of this tool may take before the runner aborts it. */
export function executionTimeoutMs(toolType: ToolType, config: unknown): number {
  return toolType.timeoutMs?.(config) ?? DEFAULT_TIMEOUT_MS;
}
