/** Unknown `type` on a tool row or request; names the registered types so the fix is obvious. */
export class NoSuchToolTypeError extends Error {
  override name = 'NoSuchToolTypeError';
  constructor(readonly type: string, readonly available: readonly string[]) {
    super(`Unknown tool type '${type}'. Available: ${available.join(', ')}.`);
  }
}

/** A tool row whose config no longer satisfies its type's schema. */
export class InvalidToolConfigError extends Error {
  override name = 'InvalidToolConfigError';
  constructor(readonly type: string, readonly issues: { path: PropertyKey[]; message: string }[]) {
    super(`Invalid config for tool type '${type}': ${issues.map((issue) => `${issue.path.join('.') || '(root)'} ${issue.message}`).join('; ')}`);
  }
}
