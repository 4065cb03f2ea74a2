import { describe, expect, it } from 'vitest';
import { formatDuration, statusLabel } from './operations.ts';

describe('formatDuration', () => {
  it('picks a readable unit', () => {
    expect(formatDuration(undefined)).toBe('—');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(200_000)).toBe('3 min 20 s');
    expect(formatDuration(2 * 3_600_000 + 5 * 60_000)).toBe('2 h 5 min');
    expect(formatDuration(3 * 86_400_000)).toBe('3 d 0 h');
  });

  it('turns status codes into words', () => {
    expect(statusLabel('awaiting_approval')).toBe('awaiting approval');
  });
});
