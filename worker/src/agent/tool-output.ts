import type { ToolOutput } from '@agentq/shared/events';
import type { ToolResult } from '@agentq/shared/tools';

/**
 * What the model reads (seed 000 §3.4): a failure is an explicit instruction to stop retrying,
 * unless the tool says the model's own input caused it (`fixable`: a program to correct); a
 * success carries the HTTP status and size when the tool reports them.
 */
export function toToolOutput(toolName: string, result: ToolResult & { replayed?: boolean; interrupted?: boolean }): ToolOutput {
  const { durationMs, ...metadata } = result.metadata;
  if (result.interrupted || metadata.interrupted === true) {
    // Not a failure to give up on: the model should check whether the call took effect before repeating it.
    return { success: false, text: `${toolName} ${result.error}`, error: result.error, durationMs, metadata, interrupted: true };
  }
  if (!result.success) {
    return {
      success: false,
      // One full stop between the error and the instruction, whether or not the error ends with one.
      text: `Tool execution failed: ${(result.error ?? 'unknown error').replace(/[\s.]+$/, '')}. ${
        metadata.fixable === true
          ? `You may call ${toolName} again with corrected input; if that cannot work, answer with what you have and tell the user what failed.`
          : `Do not call ${toolName} again for this; answer with what you have and tell the user what failed.`
      }`,
      error: result.error,
      durationMs,
      metadata,
      replayed: result.replayed,
    };
  }
  const body = typeof result.data === 'string' ? result.data : JSON.stringify(result.data ?? null);
  const status = typeof metadata.statusCode === 'number' ? ` HTTP ${metadata.statusCode}` : '';
  const size = typeof metadata.responseSize === 'number' ? ` ${metadata.responseSize} bytes` : '';
  return {
    success: true,
    text: `[${toolName} result${status}${size}]\n${body}`,
    data: result.data,
    durationMs,
    metadata,
    replayed: result.replayed,
  };
}
