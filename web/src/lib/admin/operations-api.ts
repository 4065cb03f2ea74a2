/**
 * The operators' dashboard API (`/api/admin/...`): queues, throughput, workers, failed jobs and
 * runs. These shapes are assembled in the API, so their types are read off its routes.
 */
import { apiFetch } from '../api.ts';
import { queryString, segment, type FetchOption, type RouteOutput } from '../api-routes.ts';

export type Overview = RouteOutput<'/admin/overview', '$get'>;
export type QueueSummary = Overview['queues'][number];
export type QueueState = keyof QueueSummary['counts'];
export type Throughput = Overview['throughput'];
export type FailedJob = Overview['failedJobs']['items'][number];
export type RunPage = RouteOutput<'/admin/runs', '$get'>;
export type RunRow = RunPage['items'][number];
export type RunDetail = RouteOutput<'/admin/runs/:id', '$get'>;
export type { RunTimeline, TimelineApproval, TimelineStep, TimelineToolCall } from '@agentq/shared/events';

export function getOverview(minutes: number, options: FetchOption = {}): Promise<Overview> {
  return apiFetch(`/api/admin/overview${queryString({ minutes })}`, options);
}

/** `query` is the URL's filters and cursor, as `dashboard-query.ts` builds them. */
export function listAdminRuns(query: URLSearchParams | string, options: FetchOption = {}): Promise<RunPage> {
  const search = String(query);
  return apiFetch(`/api/admin/runs${search ? `?${search}` : ''}`, options);
}

/** A run with its timeline, tool logs and approvals. */
export function getAdminRun(id: string, options: FetchOption = {}): Promise<RunDetail> {
  return apiFetch(`/api/admin/runs/${segment(id)}`, options);
}

const jobPath = (job: { queue: string; id: string }) => `/api/admin/jobs/${segment(job.queue)}/${segment(job.id)}`;

export async function retryFailedJob(job: { queue: string; id: string }): Promise<void> {
  await apiFetch(`${jobPath(job)}/retry`, { method: 'POST' });
}

export async function discardFailedJob(job: { queue: string; id: string }): Promise<void> {
  await apiFetch(jobPath(job), { method: 'DELETE' });
}
