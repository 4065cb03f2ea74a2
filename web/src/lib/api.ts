/**
 * The browser's one way to the API: same-origin `fetch('/api/...')`, so the session cookie
 * travels with every call. Failures become an `ApiError` carrying the HTTP status and the
 * API's `{ error: { code, message, issues, details } }` body.
 */
import { t } from './i18n/i18n.svelte.ts';

/** One zod issue as the API reports it on a 400. */
export type ApiIssue = { path: (string | number)[]; message: string; code?: string };

export class ApiError extends Error {
  override name = 'ApiError';
  /** HTTP status; 0 when the request never got an answer (offline, server down). */
  readonly status: number;
  readonly code: string | undefined;
  readonly issues: ApiIssue[];
  /** What the API adds to explain the error, e.g. `{ activeRunId }` on a 409 from starting a run. */
  readonly details: Record<string, unknown>;

  constructor(options: { status: number; message: string; code?: string; issues?: ApiIssue[]; details?: Record<string, unknown>; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.status = options.status;
    this.code = options.code;
    this.issues = options.issues ?? [];
    this.details = options.details ?? {};
  }
}

export type ApiFetchInit = Omit<RequestInit, 'body'> & {
  /** Sent as a JSON body with `content-type: application/json`. */
  json?: unknown;
  body?: BodyInit | null;
  /** The `fetch` of a `load` event, so SvelteKit can track and dedupe the request. */
  fetch?: typeof fetch;
};

/**
 * Calls the API and returns the parsed JSON body (`undefined` for an empty answer).
 * @throws {ApiError} for any non-2xx answer or when the API cannot be reached.
 * @example const { user } = await apiFetch<{ user: User }>('/api/auth/me', { fetch });
 */
export async function apiFetch<T = unknown>(path: string, init: ApiFetchInit = {}): Promise<T> {
  const { json, fetch: fetchImpl = fetch, ...requestInit } = init;
  const headers = new Headers(requestInit.headers);
  headers.set('accept', 'application/json');
  if (json !== undefined) {
    headers.set('content-type', 'application/json');
    requestInit.body = JSON.stringify(json);
  }

  let response: Response;
  try {
    response = await fetchImpl(path, { ...requestInit, headers });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError({ status: 0, message: t('api.unreachable'), cause: error });
  }

  const body = await readBody(response);
  if (response.ok) return body as T;
  throw toApiError(response, body);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  if (!response.headers.get('content-type')?.includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toApiError(response: Response, body: unknown): ApiError {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const message =
    typeof error?.message === 'string' && error.message
      ? error.message
      : t('api.requestFailed', { status: `${response.status} ${response.statusText || describeStatus(response.status)}`.trim() });
  return new ApiError({
    status: response.status,
    message,
    code: typeof error?.code === 'string' ? error.code : undefined,
    issues: Array.isArray(error?.issues) ? (error.issues as ApiIssue[]) : undefined,
    details: isRecord(error?.details) ? error.details : undefined,
  });
}

function describeStatus(status: number): string {
  if (status === 502 || status === 503 || status === 504) return 'the API is unavailable';
  return '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
