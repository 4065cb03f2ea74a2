/** Users' ratings of answers as admins read them (`GET /api/admin/feedback`). */
import { apiFetch } from '../api.ts';
import { queryString, type FetchOption, type RouteOutput } from '../api-routes.ts';

export type FeedbackPage = RouteOutput<'/admin/feedback', '$get'>;
export type FeedbackItem = FeedbackPage['items'][number];
export type FeedbackFilter = 'all' | 'down' | 'up';

/** The latest ratings first, `rating` up or down (every one when absent), a page at a time. */
export function listFeedback(query: { rating?: 'up' | 'down' | undefined; limit?: number; cursor?: string | null }, options: FetchOption = {}): Promise<FeedbackPage> {
  return apiFetch(`/api/admin/feedback${queryString(query)}`, options);
}
