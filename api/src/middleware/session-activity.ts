import { recordSessionActivity, SESSION_ACTIVITY_INTERVAL_MS } from '@agentq/shared/services';
import type { Database } from '@agentq/shared/db';
import type { Logger } from '@agentq/shared/logger';

/** Sessions remembered per process; past it the longest-untouched are forgotten (a forgotten one costs at most one extra write). */
const MAX_SESSIONS = 10_000;

/**
 * Keeps sessions' "last active" roughly current without costing a request anything: the request
 * path only compares two timestamps in memory; at most once per interval per session (per process)
 * a write is started after the response has gone, its failure logged and otherwise ignored.
 */
export class SessionActivity {
  readonly intervalMs: number;
  /** When this process last started a write per session id, oldest first. */
  readonly #written = new Map<string, number>();

  constructor(intervalMs = SESSION_ACTIVITY_INTERVAL_MS) {
    this.intervalMs = intervalMs;
  }

  /**
   * Whether this request should record the session's activity: when neither the stored time (as
   * the auth cache loaded it) nor this process's last write is within the interval. Claims it.
   */
  claim(sessionId: string, lastSeenAt: number, now = Date.now()): boolean {
    const written = this.#written.get(sessionId) ?? 0;
    if (now - Math.max(lastSeenAt, written) < this.intervalMs) return false;
    this.#written.delete(sessionId);
    this.#written.set(sessionId, now);
    if (this.#written.size > MAX_SESSIONS) this.#written.delete(this.#written.keys().next().value!);
    return true;
  }

  /** Writes the activity on a later turn of the event loop, after the response is on its way. */
  recordLater(db: Database, logger: Logger, sessionId: string): void {
    setImmediate(() => {
      recordSessionActivity(db, sessionId, this.intervalMs).catch((error: unknown) => {
        logger.warn({ err: error, sessionId }, 'could not record session activity');
      });
    });
  }
}
