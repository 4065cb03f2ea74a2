import { ConflictError, ForbiddenError, InvalidInputError, isDependencyDown, NotFoundError, UsageLimitReachedError } from '@agentq/shared/services';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from './deps';

/** JSON body of every error response. */
export type ErrorBody = { error: { code: string; message: string; issues?: unknown[]; details?: Record<string, unknown> } };

/** An HTTP error with a machine-readable code; routes throw it and `handleError` renders it. */
export class ApiError extends HTTPException {
  constructor(
    status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly extra: { issues?: unknown[]; details?: Record<string, unknown> } = {},
  ) {
    super(status, { message });
    this.name = 'ApiError';
  }
}

export const notFound = (what = 'Resource') => new ApiError(404, 'not_found', `${what} not found`);
export const validationFailed = (issues: unknown[], message = 'Request validation failed') =>
  new ApiError(400, 'validation_failed', message, { issues });

const CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
  503: 'service_unavailable',
};

/** Seconds a client is asked to wait after a 503 for a backing service. */
export const RETRY_AFTER_SECONDS = 2;

function postgresCode(error: unknown): string | undefined {
  const candidate = error as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof candidate?.code === 'string' ? candidate.code : candidate?.cause?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

function render(c: Context<AppEnv>, status: ContentfulStatusCode, body: ErrorBody) {
  return c.json(body, status);
}

/** The one error funnel (hono `app.onError`): nothing a client sends turns into a 500. */
export function handleError(error: Error, c: Context<AppEnv>) {
  if (error instanceof ApiError) {
    return render(c, error.status as ContentfulStatusCode, { error: { code: error.code, message: error.message, ...error.extra } });
  }
  if (error instanceof HTTPException) {
    const status = error.status as ContentfulStatusCode;
    return render(c, status, { error: { code: CODE_BY_STATUS[status] ?? 'error', message: error.message || 'Request failed' } });
  }
  if (error instanceof NotFoundError) return render(c, 404, { error: { code: 'not_found', message: error.message } });
  if (error instanceof ConflictError) return render(c, 409, { error: { code: 'conflict', message: error.message, details: error.details } });
  if (error instanceof ForbiddenError) return render(c, 403, { error: { code: 'forbidden', message: error.message } });
  if (error instanceof InvalidInputError) return render(c, 400, { error: { code: 'validation_failed', message: error.message, issues: error.issues } });
  if (error instanceof UsageLimitReachedError) {
    // Sending again is pointless before the period ends: say when that is.
    c.header('retry-after', String(Math.max(1, Math.ceil((Date.parse(error.status.resetsAt) - Date.now()) / 1000))));
    return render(c, 429, { error: { code: 'usage_limit', message: error.message, details: error.status } });
  }
  if (isDependencyDown(error)) {
    c.get('logger')?.warn({ err: error, requestId: c.get('requestId') }, 'dependency unavailable');
    // Redis/PostgreSQL restarts take seconds: tell clients (and EventSource-style retry loops) when to come back.
    c.header('retry-after', String(RETRY_AFTER_SECONDS));
    return render(c, 503, { error: { code: 'service_unavailable', message: 'A backing service is unavailable; try again shortly' } });
  }
  const pgCode = postgresCode(error);
  // Malformed values that reached the database (bad uuid/number text, out-of-range, too long) are client input errors.
  if (pgCode && (pgCode.startsWith('22') || pgCode === '23502' || pgCode === '23514')) {
    return render(c, 400, { error: { code: 'bad_request', message: 'A value in the request is invalid' } });
  }
  if (pgCode === '23505') return render(c, 409, { error: { code: 'conflict', message: 'A resource with these values already exists' } });
  if (pgCode === '23503') return render(c, 409, { error: { code: 'conflict', message: 'A referenced resource does not exist or is still in use' } });
  c.get('logger')?.error({ err: error, requestId: c.get('requestId'), path: c.req.path }, 'unhandled error');
  return render(c, 500, { error: { code: 'internal', message: 'Internal server error' } });
}
