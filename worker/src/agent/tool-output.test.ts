import { describe, expect, it } from 'vitest';
import { toToolOutput } from './tool-output';

describe('toToolOutput', () => {
  it('puts exactly one full stop after a failure, whether or not the error ends with one', () => {
    const withStop = toToolOutput('web', { success: false, error: 'HTTP 404 Not Found. Do not retry it unchanged.', metadata: { durationMs: 3 } });
    expect(withStop.text).toBe('Tool execution failed: HTTP 404 Not Found. Do not retry it unchanged. Do not call web again for this; answer with what you have and tell the user what failed.');
    const without = toToolOutput('web', { success: false, error: 'timed out', metadata: { durationMs: 3 } });
    expect(without.text).toMatch(/^Tool execution failed: timed out\. Do not call web/);
    expect(without.text).not.toContain('..');
  });

  it('invites a corrected call when the failure is in the model\'s own input (a program that threw), and only then', () => {
    const fixable = toToolOutput('code', { success: false, error: 'TypeError: x is not a function', metadata: { durationMs: 3, fixable: true } });
    expect(fixable.text).toBe('Tool execution failed: TypeError: x is not a function. You may call code again with corrected input; if that cannot work, answer with what you have and tell the user what failed.');
    expect(toToolOutput('code', { success: false, error: 'Cancelled', metadata: { durationMs: 3, fixable: false } }).text).toMatch(/Do not call code again/);
  });
});
