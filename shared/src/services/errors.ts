/** Domain errors the HTTP layer maps to status codes; services return or throw these, never HTTP types. */
export class NotFoundError extends Error {
  override name = 'NotFoundError';
  constructor(readonly resource: string, readonly id?: string) {
    super(`${resource} not found`);
  }
}

export class ConflictError extends Error {
  override name = 'ConflictError';
  constructor(message: string, readonly details?: Record<string, unknown>) {
    super(message);
  }
}

/** PostgreSQL's unique_violation (23505), as postgres.js or PGlite report it (on the error or its cause). */
export function isUniqueViolation(error: unknown): boolean {
  const candidate = error as { code?: string; cause?: { code?: string } } | null | undefined;
  return candidate?.code === '23505' || candidate?.cause?.code === '23505';
}

export class ForbiddenError extends Error {
  override name = 'ForbiddenError';
}

/** Input that passed the schema but breaks a domain rule (e.g. config invalid for the tool type). */
export class InvalidInputError extends Error {
  override name = 'InvalidInputError';
  constructor(message: string, readonly issues: unknown[] = []) {
    super(message);
  }
}

/** Connection failures of PostgreSQL or Redis: a dependency is down, the client did nothing wrong. */
export function isDependencyDown(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const { code, name, message } = current as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', '57P01', '57P03', '53300'].includes(code)) return true;
    if (name === 'MaxRetriesPerRequestError') return true;
    if (typeof message === 'string' && /enableOfflineQueue options is false|Connection is closed|Command timed out|Redis not ready|Stream isn't writeable/i.test(message)) return true;
    // Redis answering but not serving yet (loading its AOF/RDB after a restart, a busy script, a failover).
    if (typeof message === 'string' && /^(LOADING|BUSY|TRYAGAIN|CLUSTERDOWN|MASTERDOWN)\b/.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
