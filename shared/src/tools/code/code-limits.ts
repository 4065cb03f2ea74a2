/**
 * The code tool's limits, shared by its config schema (index.ts) and its sandbox thread
 * (code-thread.ts), which loads nothing else of the tool.
 */
export const CODE_LIMITS = {
  timeoutMs: { default: 2_000, min: 100, max: 10_000 },
  memoryLimitMb: { default: 32, min: 8, max: 128 },
  maxOutputChars: { default: 20_000, min: 1_000, max: 200_000 },
  /** Characters of program source the model may send. */
  maxCodeChars: 20_000,
  /** Characters of the `input` field, as JSON. */
  maxInputChars: 100_000,
} as const;
