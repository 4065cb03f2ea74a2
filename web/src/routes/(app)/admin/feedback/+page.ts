import { dayWindow, feedbackSummary, listFeedback, type FeedbackFilter } from '#lib/feedback/feedback-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

/** Ratings per page; "Load more" reads the next with the API's cursor. */
const PAGE_SIZE = 50;

export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:feedback');
  // The filter lives in the URL, so the view of bad answers can be reloaded and shared.
  const requested = url.searchParams.get('rating');
  const filter: FeedbackFilter = requested === 'up' || requested === 'down' ? requested : 'all';
  const agentId = url.searchParams.get('agentId') || undefined;
  const modelId = url.searchParams.get('modelId') || undefined;
  // The days the ratings were given in, as the admin's calendar has them (the API takes instants).
  const from = url.searchParams.get('from') || undefined;
  const to = url.searchParams.get('to') || undefined;
  const window = dayWindow(from, to);
  try {
    const [page, summary] = await Promise.all([
      listFeedback({ rating: filter === 'all' ? undefined : filter, agentId, modelId, ...window, limit: PAGE_SIZE }, { fetch }),
      feedbackSummary(window, { fetch }),
    ]);
    return { page, summary, filter, agentId, modelId, from: window.since ? from : undefined, to: window.until ? to : undefined, window, pageSize: PAGE_SIZE };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
