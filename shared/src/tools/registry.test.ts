import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { ToolType } from './define-tool-type';
import { NoSuchToolTypeError } from './errors';
import { describeToolTypes, getToolType, inputJsonSchema, toolTypeConfigSchema, toolTypes } from './registry';

describe('tool type registry', () => {
  it('has unique kebab-case names', () => {
    const names = toolTypes.map((toolType) => toolType.type);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
  });

  describe.each(toolTypes.map((toolType) => [toolType.type, toolType] as const))('%s', (_name, toolType) => {
    it('parses an empty config to its defaults, and describes them', () => {
      const defaults = (toolType.configSchema as z.ZodType).parse({});
      expect(defaults).toBeTypeOf('object');
      expect(toolType.describe(defaults as never).length).toBeGreaterThan(20);
      expect(toolType.label.length).toBeGreaterThan(0);
      expect(toolType.summary.length).toBeGreaterThan(0);
    });

    it('converts config and input schemas to JSON Schema objects', () => {
      const config = z.toJSONSchema(toolType.configSchema as z.ZodType, { io: 'input' });
      const input = z.toJSONSchema(toolType.inputSchema as z.ZodType, { io: 'input' });
      expect(config.type).toBe('object');
      expect(input.type === 'object' || Array.isArray(input.oneOf) || Array.isArray(input.anyOf)).toBe(true);
      // What the LLM gets must be an object schema at the top (function-calling APIs require it).
      expect(inputJsonSchema(toolType as never).type).toBe('object');
    });

    it('declares discovery and expansion together, and a secrets schema that converts to JSON Schema', () => {
      const type = toolType as ToolType;
      expect(type.discover === undefined).toBe(type.expand === undefined);
      if (type.expand) expect(type.expand((type.configSchema as z.ZodType).parse({}), null)).toEqual([]);
      if (type.secretsSchema) expect(z.toJSONSchema(type.secretsSchema as z.ZodType, { io: 'input' }).type).toBe('object');
      const effect = typeof type.effect === 'function' ? type.effect({}, (type.configSchema as z.ZodType).parse({})) : (type.effect ?? 'non-idempotent');
      expect(['none', 'idempotent', 'non-idempotent']).toContain(effect);
    });

    it('is validated through the derived { type, config } union', () => {
      expect(toolTypeConfigSchema.safeParse({ type: toolType.type }).success).toBe(true);
      expect(toolTypeConfigSchema.safeParse({ type: toolType.type, config: 'not an object' }).success).toBe(false);
    });
  });

  it('names the available types when one is unknown', () => {
    expect(() => getToolType('ftp')).toThrow(NoSuchToolTypeError);
    expect(() => getToolType('ftp')).toThrow(/Unknown tool type 'ftp'\. Available: fetch, /);
    expect(toolTypeConfigSchema.safeParse({ type: 'ftp', config: {} }).success).toBe(false);
  });

  it('describes every type for GET /api/tool-types', () => {
    const described = describeToolTypes();
    expect(described.map((item) => item.type)).toEqual(toolTypes.map((toolType) => toolType.type));
    for (const item of described) expect(item.defaults).toEqual((getToolType(item.type).configSchema as z.ZodType).parse({}));
  });
});
