import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { humanError } from './human-errors';

const messages = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value, { error: humanError });
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
};

describe('humanError', () => {
  it('says what to do instead of quoting zod', () => {
    expect(messages(z.object({ name: z.string().min(1) }), { name: '' })).toEqual(['Required']);
    expect(messages(z.object({ name: z.string() }), {})).toEqual(['Required']);
    expect(messages(z.string().min(8), 'short')).toEqual(['Enter at least 8 characters']);
    expect(messages(z.string().max(3), 'long!')).toEqual(['Use at most 3 characters']);
    expect(messages(z.number().int().min(1), 0)).toEqual(['Must be 1 or more']);
    expect(messages(z.number(), 'x')).toEqual(['Expected a number']);
    expect(messages(z.url(), 'nope')).toEqual(['Enter a URL, e.g. https://example.com']);
    expect(messages(z.enum(['a', 'b']), 'c')).toEqual(['Choose one of: "a", "b"']);
    expect(messages(z.strictObject({}), { extra: 1 })).toEqual(['Unknown field: extra']);
  });

  it('leaves a schema’s own message alone', () => {
    expect(messages(z.string().min(8, 'Password must be at least 8 characters'), 'x')).toEqual(['Password must be at least 8 characters']);
  });
});
