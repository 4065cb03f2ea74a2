import type { Redis } from 'ioredis';
import type { RunEvent } from '../events';
import { runStreamKeys } from './keys';

/** An entry of a run's stream as Redis returns it: id `${seq}-0`, fields `['e', json]`. */
export type StreamEntry = [id: string, fields: string[]];

/** The event an entry holds. */
const entryEvent = ([, fields]: StreamEntry) => JSON.parse(fields[1]!) as RunEvent;

/** The seq of the first of `entries` (0 when there is none). */
export const firstEntrySeq = (entries: StreamEntry[]) => (entries[0] ? Number(entries[0][0].split('-')[0]) : 0);

/** Events with seq > afterSeq from the run's Redis stream, in order. */
export async function readRunEvents(redis: Redis, prefix: string, runId: string, afterSeq: number, limit = 1000): Promise<RunEvent[]> {
  const key = runStreamKeys(prefix, runId).events;
  const events: RunEvent[] = [];
  let start = `${afterSeq + 1}-0`;
  for (;;) {
    const entries = (await redis.xrange(key, start, '+', 'COUNT', limit)) as StreamEntry[];
    events.push(...entries.map(entryEvent));
    if (entries.length < limit) return events;
    start = `${events.at(-1)!.seq + 1}-0`;
  }
}

/** Where a follower starts: the events after its position, the first seq the stream still holds (0: empty or gone) and its last event. */
export type StoredStream = { events: RunEvent[]; firstSeq: number; last: RunEvent | undefined };

/**
 * What a new follower reads before it streams, in one round trip: three reads sent in one pass,
 * which leave in one socket write (the connections are opened with coalesceWrites). Not an ioredis
 * `pipeline()`: each one copies every script defined on its connection (BullMQ's dozens), 2.5 % of
 * the API's CPU in a text-run profile. A run with more than a page after `afterSeq` reads the
 * rest as readRunEvents does.
 */
export async function readStoredStream(redis: Redis, prefix: string, runId: string, afterSeq: number, limit = 1000): Promise<StoredStream> {
  const key = runStreamKeys(prefix, runId).events;
  const [page, first, last] = (await Promise.all([
    redis.xrange(key, `${afterSeq + 1}-0`, '+', 'COUNT', limit),
    redis.xrange(key, '-', '+', 'COUNT', 1),
    redis.xrevrange(key, '+', '-', 'COUNT', 1),
  ])) as [StreamEntry[], StreamEntry[], StreamEntry[]];
  const events = page.map(entryEvent);
  if (page.length === limit) events.push(...(await readRunEvents(redis, prefix, runId, events.at(-1)!.seq, limit)));
  return { events, firstSeq: firstEntrySeq(first), last: last[0] && entryEvent(last[0]) };
}
