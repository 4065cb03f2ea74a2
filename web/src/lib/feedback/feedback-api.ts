/** Users' ratings of answers as admins read them (`GET /api/admin/feedback`). */
import { apiFetch } from '../api.ts';
import { queryString, type FetchOption, type RouteOutput } from '../api-routes.ts';
import type { DayWindow } from '../day-window.ts';

export { dayWindow } from '../day-window.ts';

export type FeedbackPage = RouteOutput<'/admin/feedback', '$get'>;
export type FeedbackItem = FeedbackPage['items'][number];
export type FeedbackFilter = 'all' | 'down' | 'up';
export type FeedbackSummaryRow = RouteOutput<'/admin/feedback/summary', '$get'>['items'][number];
/** When ratings were given: `since` inclusive, `until` exclusive, ISO 8601. */
export type FeedbackWindow = DayWindow;
export type FeedbackQuery = FeedbackWindow & { rating?: 'up' | 'down' | undefined; agentId?: string | undefined; modelId?: string | undefined; limit?: number; cursor?: string | null };

/** The latest ratings first, `rating` up or down (every one when absent), of an agent or a model, a page at a time. */
export function listFeedback(query: FeedbackQuery, options: FetchOption = {}): Promise<FeedbackPage> {
  return apiFetch(`/api/admin/feedback${queryString(query)}`, options);
}

/** Every rating counted by agent and model, the most bad ones first. */
export async function feedbackSummary(window: FeedbackWindow = {}, options: FetchOption = {}): Promise<FeedbackSummaryRow[]> {
  return (await apiFetch<{ items: FeedbackSummaryRow[] }>(`/api/admin/feedback/summary${queryString(window)}`, options)).items;
}

/** The page's URL for a view: the rating tab, the agent and model filters, the days (`YYYY-MM-DD`, inclusive). */
export function feedbackViewUrl(view: { rating: FeedbackFilter; agentId?: string | null | undefined; modelId?: string | null | undefined; from?: string | null | undefined; to?: string | null | undefined }): string {
  const query = queryString({ rating: view.rating === 'all' ? undefined : view.rating, agentId: view.agentId, modelId: view.modelId, from: view.from, to: view.to });
  return `/admin/feedback${query}`;
}
