import { prefixedKey, taggedKey } from '../redis/keys';

/**
 * Redis names for one run; the prefix keeps installations and test runs apart. The run id is a
 * hash tag, so on a Redis Cluster a run's stream and channel share a slot and runs spread out.
 */
export const runStreamKeys = (prefix: string, runId: string) => ({
  /** Capped Redis stream of the run's events; entry ids are `${seq}-0`. */
  events: taggedKey(prefix, 'run', runId, 'events'),
  /** Pub/sub channel announcing new events (batches of RunEvent). */
  channel: taggedKey(prefix, 'run', runId, 'live'),
});

/** Pub/sub channel on which cancel requests reach whichever worker holds the run. */
export const runControlChannel = (prefix: string) => prefixedKey(prefix, 'run-control');

/** How many events a run's stream keeps; longer runs replay their start from the persisted message. */
export const RUN_STREAM_MAX_EVENTS = 20_000;
/** A finished run's stream stays replayable this long. */
export const RUN_STREAM_TTL_SECONDS = 24 * 3600;
