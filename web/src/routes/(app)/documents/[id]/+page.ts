import { findRunSessions, getDocument, listRevisions } from '#lib/documents/documents-api.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

/** Chat sessions looked up for the agent's runs in the history (the first version's run always). */
const MAX_RUN_LOOKUPS = 20;

export const load: PageLoad = async ({ fetch, params, url, depends }) => {
  depends('app:document');
  try {
    const [document, revisions] = await Promise.all([getDocument(params.id, { fetch }), listRevisions(params.id, { fetch })]);
    // The session a document came from is the session of the run that wrote version 1. The
    // document view does not carry its `sessionId`, so it is found through that run.
    const firstRunId = revisions.find((revision) => revision.version === 1)?.createdByRunId ?? null;
    const runIds = [firstRunId, ...revisions.map((revision) => revision.createdByRunId)].filter((id): id is string => !!id);
    const runSessions = await findRunSessions([...new Set(runIds)].slice(0, MAX_RUN_LOOKUPS), { fetch });
    const createdInSession = (firstRunId ? (runSessions.get(firstRunId) ?? null) : null);
    return { document, revisions, runSessions, createdInSession };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
