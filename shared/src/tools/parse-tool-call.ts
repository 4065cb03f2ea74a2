import type { z } from 'zod';
import type { ToolResult } from './define-tool-type';

/**
 * A call's input and its tool's config checked against the type's schemas, or the failed
 * ToolResult the model reads, naming each issue. `fixableInput` marks bad input as the model's to
 * correct (metadata.fixable); a bad configuration is the admin's either way.
 */
export function parseToolCall<Input extends z.ZodType, Config extends z.ZodType>(
  schemas: { input: Input; config: Config },
  call: { input: unknown; config: unknown; durationMs: () => number; fixableInput?: boolean },
): { ok: true; input: z.output<Input>; config: z.output<Config> } | { ok: false; result: ToolResult } {
  const input = schemas.input.safeParse(call.input);
  const config = schemas.config.safeParse(call.config);
  if (input.success && config.success) return { ok: true, input: input.data, config: config.data };
  const issues = (input.error ?? config.error)?.issues ?? [];
  return {
    ok: false,
    result: {
      success: false,
      error: `Invalid ${input.success ? 'tool configuration' : 'input'}: ${issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`,
      metadata: { durationMs: call.durationMs(), ...(call.fixableInput && { fixable: config.success }) },
    },
  };
}
