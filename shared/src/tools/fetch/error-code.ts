/** The first `code` (ECONNREFUSED, ENOTFOUND, …) on an error or the chain of its causes, a few deep (undici and the MCP SDK wrap the socket's error). */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
