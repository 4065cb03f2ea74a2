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
