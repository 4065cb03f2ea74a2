import { getSession, type SessionDetail } from '#lib/chat/sessions-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import { getRun, type RunView } from '#lib/runs/runs-api.ts';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ fetch, params, url }) => {
  try {
    const session = await getSession(params.sessionId, { fetch });
    return { session, runs: await readRuns(session, fetch) };
  } catch (caught) {
    throwPageError(caught, url);
  }
};

/**
 * The outcome of each finished run (stopped, failed, step limit), which stored messages do not
 * carry. A run that cannot be read just shows without its outcome.
 */
async function readRuns(session: SessionDetail, fetchImpl: typeof fetch): Promise<Map<string, RunView>> {
  const ids = new Set(session.messages.map((message) => message.runId).filter((id): id is string => !!id && id !== session.activeRunId));
  const runs = await Promise.all([...ids].map((id) => getRun(id, { fetch: fetchImpl }).catch(() => undefined)));
  return new Map(runs.filter((run): run is RunView => run !== undefined).map((run) => [run.id, run]));
}
