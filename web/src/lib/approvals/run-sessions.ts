import { sessionOfRun } from './approvals-api.ts';

// A run never moves to another session, so what was read once holds for good (the app renders
// only in the browser: this is per tab, never shared between users on a server).
const known = new Map<string, string | null>();

/**
 * The chat session of each run, for "Open chat" links; runs that cannot be read map to null.
 * @example const sessions = await sessionsOfRuns(approvals.map((approval) => approval.runId), fetch);
 */
export async function sessionsOfRuns(runIds: Iterable<string>, fetchImpl: typeof fetch = fetch): Promise<Map<string, string | null>> {
  const wanted = [...new Set(runIds)];
  await Promise.all(
    wanted
      .filter((runId) => !known.has(runId))
      .map(async (runId) => {
        const sessionId = await sessionOfRun(runId, { fetch: fetchImpl }).catch(() => undefined);
        // A failed read is not remembered: the next load tries again.
        if (sessionId !== undefined) known.set(runId, sessionId);
      }),
  );
  return new Map(wanted.map((runId) => [runId, known.get(runId) ?? null]));
}
