import { describe, expect, it } from 'vitest';
import { runCost } from './run-cost';

describe('runCost', () => {
  it("prices a run's tokens in and out per million, to 8 decimals; no price is no cost, one price alone counts the other as 0", () => {
    expect(runCost({ inputTokens: 1_200, outputTokens: 300 }, { inputPrice: 2.5, outputPrice: 10 })).toBe(0.006);
    expect(runCost({ inputTokens: 1_200, outputTokens: 300 }, { inputPrice: 0.15, outputPrice: null })).toBe(0.00018);
    expect(runCost({ inputTokens: 1, outputTokens: 1 }, { inputPrice: 0.000001, outputPrice: 0 })).toBe(0);
    expect(runCost({ inputTokens: 3, outputTokens: 7 }, { inputPrice: 1, outputPrice: 1 })).toBe(0.00001);
    expect(runCost({}, { inputPrice: 5, outputPrice: 5 })).toBe(0);
    expect(runCost({ inputTokens: 10 }, { inputPrice: null, outputPrice: null })).toBeNull();
    expect(runCost({ inputTokens: 10 }, null)).toBeNull();
  });
});
