import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '#lib/components/schema-form/json-schema.ts';
import { enumOptions, exampleValue, fieldKind, fieldLabel, initialValue, isFormSchema, issuesFor, parseJsonObject, unionExamples, unwrapSchema } from './json-schema.ts';

// Shaped like `z.toJSONSchema(schema, { io: 'input' })` output.
const config: JsonSchema = {
  type: 'object',
  properties: {
    method: { type: 'string', enum: ['GET', 'POST'], default: 'GET' },
    headers: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: 'string' }, default: {} },
    timeout: { type: 'integer', minimum: 100, maximum: 60000, default: 10000 },
    ratio: { type: 'number' },
    domains: { type: 'array', items: { type: 'string' }, default: ['*'] },
    verbose: { type: 'boolean', default: false },
    notes: { type: 'string', maxLength: 2000 },
    retry: { type: 'object', properties: { attempts: { type: 'integer', default: 3 } } },
    optionalNested: { type: 'object', properties: { label: { type: 'string' } } },
    shape: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    nullableName: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'may be null' },
  },
  additionalProperties: false,
};

const union: JsonSchema = {
  oneOf: [
    { type: 'object', properties: { action: { type: 'string', const: 'now' }, timezone: { type: 'string' } }, required: ['action'] },
    {
      type: 'object',
      properties: { action: { type: 'string', const: 'add' }, date: { type: 'string' }, amount: { type: 'number' } },
      required: ['action', 'date', 'amount'],
    },
  ],
};

describe('fieldKind', () => {
  it('picks a widget per JSON Schema shape, with JSON as the fallback', () => {
    const kinds = Object.fromEntries(Object.entries(config.properties!).map(([key, schema]) => [key, fieldKind(schema)]));
    expect(kinds).toEqual({
      method: 'enum',
      headers: 'record',
      timeout: 'integer',
      ratio: 'number',
      domains: 'list',
      verbose: 'boolean',
      notes: 'text',
      retry: 'object',
      optionalNested: 'object',
      shape: 'json',
      nullableName: 'string',
    });
    expect(fieldKind({ type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } })).toBe('json');
    expect(fieldKind({ anyOf: [{ const: 'a' }, { const: 'b' }] })).toBe('enum');
  });

  it('treats only objects with named fields as forms', () => {
    expect(isFormSchema(config)).toBe(true);
    expect(isFormSchema(union)).toBe(false);
    expect(isFormSchema({ type: 'object', additionalProperties: { type: 'string' } })).toBe(false);
  });
});

describe('initialValue', () => {
  it('fills defaults, nested defaults included, and lets the base win', () => {
    expect(initialValue(config, { timeout: 5000 })).toEqual({
      method: 'GET',
      headers: {},
      timeout: 5000,
      domains: ['*'],
      verbose: false,
      retry: { attempts: 3 },
    });
  });

  it('copies rather than shares the defaults', () => {
    const value = initialValue(config) as { domains: string[] };
    value.domains.push('x');
    expect(config.properties!.domains!.default).toEqual(['*']);
  });
});

describe('examples for JSON editors', () => {
  it('fills the required fields of the first union member', () => {
    expect(exampleValue(union)).toEqual({ action: 'now' });
  });

  it('labels each union member by its constants', () => {
    expect(unionExamples(union)).toEqual([
      { label: 'action: now', value: { action: 'now' } },
      { label: 'action: add', value: { action: 'add', date: '', amount: 0 } },
    ]);
  });
});

describe('helpers', () => {
  it('unwraps nullable unions and lists constant unions as enums', () => {
    expect(unwrapSchema({ anyOf: [{ type: 'integer' }, { type: 'null' }], default: null })).toEqual({ type: 'integer', default: null });
    expect(enumOptions({ anyOf: [{ const: 1 }, { const: 2 }] })).toEqual([1, 2]);
  });

  it('labels camelCase keys for people', () => {
    expect(fieldLabel('defaultHeaders')).toBe('Default headers');
    expect(fieldLabel('maxResponseSize')).toBe('Max response size');
    expect(fieldLabel('parse_mode')).toBe('Parse mode');
    expect(fieldLabel('x', { title: 'Custom' })).toBe('Custom');
  });

  it('routes issues to leaf widgets by prefix and to fieldsets exactly', () => {
    const issues = [
      { path: ['domains', 2], message: 'bad host' },
      { path: ['retry', 'attempts'], message: 'too many' },
      { path: ['retry'], message: 'retry is odd' },
    ];
    expect(issuesFor(issues, ['domains'], 'list').map((issue) => issue.message)).toEqual(['bad host']);
    expect(issuesFor(issues, ['retry'], 'object').map((issue) => issue.message)).toEqual(['retry is odd']);
    expect(issuesFor(issues, ['retry', 'attempts'], 'integer').map((issue) => issue.message)).toEqual(['too many']);
  });

  it('accepts only JSON objects as raw configs', () => {
    expect(parseJsonObject('{"a":1}')).toEqual({ value: { a: 1 } });
    expect(parseJsonObject('[1]').error).toMatch(/JSON object/);
    expect(parseJsonObject('{a:1}').error).toMatch(/^Invalid JSON/);
    expect(parseJsonObject('  ').error).toMatch(/JSON object/);
  });
});
