import { getSession } from '#lib/chat/sessions-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

// The session read carries every run's outcome (stopped, failed, step limit) with its messages.
export const load: PageLoad = async ({ fetch, params, url }) => {
  try {
    return { session: await getSession(params.sessionId, { fetch }) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
