import { mayViewRun, type Run } from '@agentq/shared/services';

/** Long enough for the GET that follows a 202; short enough that the row it stands for is barely older. */
const KEEP_MS = 10_000;
/** A bound for clients that create runs and never follow them (they poll GET /api/runs/:id). */
const MAX_KEPT = 10_000;

/**
 * The runs this API process answered 202 for moments ago, each kept for the GET of its events that
 * follows (the web UI opens it at once). That GET's lookup of the run was a database read in the
 * same milliseconds in which a worker takes the run and sends its model request, five processes
 * on two cores; read from here, a serial run's first token comes sooner (docs/benchmarks.md,
 * change 75). A run is handed out once and only to whom the database would show it (mayViewRun);
 * all the follower needs of it is that it is the viewer's and was not ended, and a run that ended
 * meanwhile is read to its end from its stream. A second GET, one after `KEEP_MS`, or one to
 * another API process reads the database as before.
 */
export class CreatedRuns {
  private readonly runs = new Map<string, { run: Run; at: number }>();

  remember(run: Run, now = Date.now()): void {
    this.runs.set(run.id, { run, at: now });
    // In insertion order, so the oldest go first: the expired, then any over the bound.
    for (const [id, entry] of this.runs) {
      if (this.runs.size <= MAX_KEPT && now - entry.at < KEEP_MS) break;
      this.runs.delete(id);
    }
  }

  /** The run as created, if this process created it within `KEEP_MS` and `viewer` may see it; once. */
  take(runId: string, viewer: Parameters<typeof mayViewRun>[1], now = Date.now()): Run | undefined {
    const entry = this.runs.get(runId);
    if (!entry || !mayViewRun(entry.run, viewer)) return undefined;
    this.runs.delete(runId);
    return now - entry.at < KEEP_MS ? entry.run : undefined;
  }
}
