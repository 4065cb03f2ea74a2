import type { z } from 'zod';
import { effectOf, type ExpandedTool, type ToolDiscovery, type ToolEffect, type ToolType } from './define-tool-type';
import { getToolType, inputJsonSchema } from './registry';

/** The fields of a tool row that decide which model tools it offers. */
export type ToolRowLike = { slug: string; type: string; config: unknown; description: string; discovery?: unknown };

/** One tool as the model sees it: a whole instance, or one discovered tool of an expanding instance. */
export type ModelTool<Row extends ToolRowLike = ToolRowLike> = {
  /** The function name the model calls: the slug, or `<slug>__<name>` for an expanded tool. */
  name: string;
  row: Row;
  /** The discovered tool for an expanded instance; null for a plain one. */
  call: ExpandedTool | null;
  description: string;
  inputSchema: Record<string, unknown>;
};

/** Function-calling APIs accept `^[a-zA-Z0-9_-]{1,64}$`. */
export const MODEL_TOOL_NAME_MAX = 64;
export const MODEL_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** `name` with everything outside [A-Za-z0-9_-] replaced by `_` (`tool` when nothing is left); not cut. */
export function modelSafeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_') || 'tool';
}

/** `<slug>__<name>` with everything outside [A-Za-z0-9_-] replaced by `_`, cut to 64 characters. */
export function modelToolName(slug: string, name: string): string {
  return `${slug}__${modelSafeName(name)}`.slice(0, MODEL_TOOL_NAME_MAX);
}

/** The snapshot stored on a row, when its type discovers. */
export function discoveryOf(row: ToolRowLike): ToolDiscovery | null {
  const discovery = row.discovery as ToolDiscovery | null | undefined;
  return discovery && Array.isArray(discovery.tools) ? discovery : null;
}

/**
 * The model tools of one row, or of several: a plain instance is one tool named by its slug; an expanding
 * one becomes a tool per allowed discovered tool. Names that collide after sanitising and cutting get
 * `_2`, `_3`… in the order of the rows and of the server's tools, so the same rows always give the same names.
 * Rows whose config no longer parses are left out.
 */
export function expandToolRows<Row extends ToolRowLike>(rows: readonly Row[]): ModelTool<Row>[] {
  const taken = new Set<string>();
  const unique = (base: string) => {
    let name = base;
    for (let counter = 2; taken.has(name); counter += 1) {
      const suffix = `_${counter}`;
      name = `${base.slice(0, MODEL_TOOL_NAME_MAX - suffix.length)}${suffix}`;
    }
    taken.add(name);
    return name;
  };
  // Plain slugs first: they are unique by constraint and must keep their names.
  for (const row of rows) if (!getToolType(row.type).expand) taken.add(row.slug);
  const result: ModelTool<Row>[] = [];
  for (const row of rows) {
    const toolType = getToolType(row.type) as ToolType;
    const config = (toolType.configSchema as z.ZodType).safeParse(row.config);
    if (!config.success) continue;
    if (!toolType.expand) {
      const description = [row.description, toolType.describe(config.data)].filter(Boolean).join('\n\n');
      result.push({ name: row.slug, row, call: null, description, inputSchema: inputJsonSchema(toolType) as Record<string, unknown> });
      continue;
    }
    for (const call of toolType.expand(config.data, discoveryOf(row))) {
      const description = [row.description, call.title && call.title !== call.name ? call.title : '', call.description].filter(Boolean).join('\n\n');
      result.push({ name: unique(modelToolName(row.slug, call.name)), row, call, description: description || call.name, inputSchema: objectSchema(call.inputSchema) });
    }
  }
  return result;
}

/** The effect class of one call: the discovered tool's own, else the type's rule. */
export function toolEffect(toolType: ToolType, config: unknown, input: unknown, call?: ExpandedTool | null): ToolEffect {
  return call ? call.effect : effectOf(toolType, input, config);
}

/** Function-calling APIs require an object schema at the top; servers sometimes omit `type`. */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  if (schema?.type === 'object') return schema;
  if (schema && schema.type === undefined) return { properties: {}, ...schema, type: 'object' };
  return { type: 'object', properties: {} };
}
