import { describe, expect, it } from 'vitest';
import { tokensOf } from './usage-limits-api.ts';

describe("a limit field's text", () => {
  it('is a number of tokens (thousands separators allowed), or null when empty for no limit', () => {
    expect(tokensOf('5000')).toBe(5000);
    expect(tokensOf(' 1,000,000 ')).toBe(1_000_000);
    expect(tokensOf('')).toBeNull();
    expect(tokensOf('   ')).toBeNull();
    expect(tokensOf(null)).toBeNull();
  });

  it('goes as it is when it is no whole number, for the API to refuse in words (never silently no limit)', () => {
    expect(tokensOf('-5')).toBe(-5);
    expect(tokensOf('1.5')).toBe(1.5);
    expect(tokensOf('lots')).toBe('lots');
  });
});
