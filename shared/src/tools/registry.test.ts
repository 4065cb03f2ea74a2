import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { effectOf, TOOL_EFFECTS, type ToolType } from './define-tool-type';
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
    });

    it('declares the effect of its calls, and every call gets one of the declared effects', () => {
      const rule = (toolType as ToolType).effect;
      expect(rule, `${toolType.type} must declare its effect`).toBeDefined();
      expect(rule!.possible.length).toBeGreaterThan(0);
      for (const effect of rule!.possible) expect(TOOL_EFFECTS).toContain(effect);
      expect(rule!.summary.length).toBeGreaterThan(10);
      // A type with more than one possible effect must say which applies per call.
      if (rule!.possible.length > 1) expect(rule!.of).toBeTypeOf('function');
      const defaults = (toolType.configSchema as z.ZodType).parse({});
      expect(rule!.possible).toContain(effectOf(toolType as ToolType, {}, defaults));
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
    for (const item of described) expect(item.effect.possible.length).toBeGreaterThan(0);
  });

  it('classifies calls by effect: reads none, RFC 9110 idempotent methods idempotent, writes and POST non-idempotent', () => {
    const effect = (type: string, input: unknown, config: Record<string, unknown> = {}) =>
      effectOf(getToolType(type), input, (getToolType(type).configSchema as z.ZodType).parse(config));
    expect(effect('calculator', { expression: '1+1' })).toBe('none');
    expect(effect('datetime', {})).toBe('none');
    for (const action of ['read', 'list', 'search']) expect(effect('document', { action })).toBe('none');
    for (const action of ['create', 'update', 'delete', 'str_replace', 'insert', 'restore']) expect(effect('document', { action })).toBe('non-idempotent');
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']) expect(effect('fetch', { url: 'https://example.com', method })).toBe('idempotent');
    for (const method of ['POST', 'PATCH']) expect(effect('fetch', { url: 'https://example.com', method })).toBe('non-idempotent');
    // No method in the call: the configured default decides.
    expect(effect('fetch', { url: 'https://example.com' }, { defaultMethod: 'POST' })).toBe('non-idempotent');
    // A type without a rule is treated as the worst case.
    expect(effectOf({ effect: undefined }, {}, {})).toBe('non-idempotent');
  });
});
