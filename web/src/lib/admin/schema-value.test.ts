import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../components/schema-form/json-schema.ts';
import { SchemaValue } from './schema-value.svelte.ts';

const objectSchema: JsonSchema = { type: 'object', properties: { timeout: { type: 'integer' } } };
const unionSchema: JsonSchema = { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'string' } } }] };

describe('SchemaValue', () => {
  it('edits one object as a form or as raw JSON, and back only when the JSON parses', () => {
    const config = new SchemaValue(() => objectSchema, { timeout: 5 });
    expect(config.tab).toBe('form');
    expect(config.current()).toEqual({ value: { timeout: 5 } });

    config.select('raw');
    expect(JSON.parse(config.rawText)).toEqual({ timeout: 5 });
    config.rawText = '{ "timeout": ';
    expect(config.rawError).not.toBeNull();
    expect(config.current()).toEqual({ invalid: 'raw' });
    config.select('form');
    expect(config.tab).toBe('raw');

    config.rawText = '{ "timeout": 9 }';
    expect(config.rawError).toBeNull();
    config.select('form');
    expect(config.tab).toBe('form');
    expect(config.current()).toEqual({ value: { timeout: 9 } });

    config.formValid = false;
    expect(config.current()).toEqual({ invalid: 'form' });
  });

  it('starts on raw JSON when the schema cannot be a form, with the text it is given', () => {
    const input = new SchemaValue(() => unionSchema, {}, '{ "a": "x" }');
    expect(input.formable).toBe(false);
    expect(input.tab).toBe('raw');
    expect(input.current()).toEqual({ value: { a: 'x' } });
    input.select('form');
    expect(input.tab).toBe('raw');
  });
});
