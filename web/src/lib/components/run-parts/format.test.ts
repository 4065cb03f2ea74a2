import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration, formatJson } from './format.ts';

describe('format', () => {
  it('formats durations the way the reasoning header reads them', () => {
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(80)).toBe('0.1 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(120_000)).toBe('2 min');
  });

  it('formats sizes and JSON', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(3500)).toBe('3.4 KB');
    expect(formatJson({ url: 'http://x' })).toBe('{\n  "url": "http://x"\n}');
    expect(formatJson(undefined)).toBe('');
  });
});
