import { describe, expect, it } from 'vitest';
import { formatUsd } from './money.ts';

describe('formatUsd', () => {
  it('shows cents from a dollar up, and enough decimals below for a small cost not to read as $0.00', () => {
    expect(formatUsd(0, 'en')).toBe('$0.00');
    expect(formatUsd(12.5, 'en')).toBe('$12.50');
    expect(formatUsd(1234.5678, 'en')).toBe('$1,234.57');
    expect(formatUsd(0.25, 'en')).toBe('$0.25');
    expect(formatUsd(0.0287, 'en')).toBe('$0.0287');
    expect(formatUsd(0.00018, 'en')).toBe('$0.00018');
    expect(formatUsd(0.000000004, 'en')).toBe('$0.00');
    expect(formatUsd(0.006, 'zh-CN')).toBe('US$0.006');
  });
});
