/** Redis names for one run; the prefix keeps installations and test runs apart. */
export const runStreamKeys = (prefix: string, runId: string) => ({
  /** Capped Redis stream of the run's events; entry ids are `${seq}-0`. */
  events: `${prefix}:run:${runId}:events`,
  /** Pub/sub channel announcing new events (batches of RunEvent). */
  channel: `${prefix}:run:${runId}:live`,
});

/** Pub/sub channel on which cancel requests reach whichever worker holds the run. */
export const runControlChannel = (prefix: string) => `${prefix}:run-control`;

/** How many events a run's stream keeps; longer runs replay their start from the persisted message. */
export const RUN_STREAM_MAX_EVENTS = 20_000;
/** A finished run's stream stays replayable this long. */
export const RUN_STREAM_TTL_SECONDS = 24 * 3600;
