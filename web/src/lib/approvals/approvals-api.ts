import { apiFetch } from '../api.ts';
import { queryString, type FetchOption, type RouteOutput } from '../api-routes.ts';
import type { Approval, ApprovalDecisionBody, ApprovalStatus } from './types.ts';

/** `GET /api/approvals`: the rows (each with its run's chat session) and how many match in all. */
export type ApprovalList = RouteOutput<'/approvals', '$get'>;

/**
 * The viewer's approvals (an admin's: everyone's): pending ones the first to expire first, `decided`
 * ones (every status but pending) the latest decision first, otherwise newest first; `total` counts
 * every match, beyond `limit` too.
 */
export function listApprovals(query: { status?: ApprovalStatus | 'decided'; runId?: string; limit?: number } = {}, options: FetchOption = {}): Promise<ApprovalList> {
  return apiFetch(`/api/approvals${queryString(query)}`, options);
}

export function getApproval(id: string, options: FetchOption = {}): Promise<Approval> {
  return apiFetch<Approval>(`/api/approvals/${encodeURIComponent(id)}`, options);
}

/**
 * Decides a pending approval; the run resumes at once.
 * @throws {ApiError} 409 when it was already decided or expired (`details.status` says which),
 *   400 with `issues` when edited input does not fit the tool's input schema.
 */
export function decideApproval(id: string, body: ApprovalDecisionBody, options: FetchOption = {}): Promise<Approval> {
  return apiFetch<Approval>(`/api/approvals/${encodeURIComponent(id)}`, { ...options, method: 'POST', json: body });
}

/** How many approvals wait for the viewer (the navigation badge). */
export async function countPendingApprovals(options: FetchOption & { signal?: AbortSignal } = {}): Promise<number> {
  return (await apiFetch<{ pending: number }>('/api/approvals/count', options)).pending;
}
