import type { Redis } from 'ioredis';
import type { RunEvent } from '../events';
import { runStreamKeys } from './keys';

/** Events with seq > afterSeq from the run's Redis stream, in order. */
export async function readRunEvents(redis: Redis, prefix: string, runId: string, afterSeq: number, limit = 1000): Promise<RunEvent[]> {
  const key = runStreamKeys(prefix, runId).events;
  const events: RunEvent[] = [];
  let start = `${afterSeq + 1}-0`;
  for (;;) {
    const entries = (await redis.xrange(key, start, '+', 'COUNT', limit)) as [string, string[]][];
    for (const [, fields] of entries) events.push(JSON.parse(fields[1]!) as RunEvent);
    if (entries.length < limit) return events;
    start = `${events.at(-1)!.seq + 1}-0`;
  }
}

/** Where a follower starts: the events after its position, the first seq the stream still holds (0: empty or gone) and its last event. */
export type StoredStream = { events: RunEvent[]; firstSeq: number; last: RunEvent | undefined };

/**
 * What a new follower reads before it streams, in one round trip (three reads in one pipeline). A
 * run with more than a page after `afterSeq` reads the rest as readRunEvents does.
 */
export async function readStoredStream(redis: Redis, prefix: string, runId: string, afterSeq: number, limit = 1000): Promise<StoredStream> {
  const key = runStreamKeys(prefix, runId).events;
  const replies = (await redis.pipeline().xrange(key, `${afterSeq + 1}-0`, '+', 'COUNT', limit).xrange(key, '-', '+', 'COUNT', 1).xrevrange(key, '+', '-', 'COUNT', 1).exec())!;
  const failed = replies.find(([error]) => error);
  if (failed) throw failed[0];
  const [page, first, last] = replies.map(([, entries]) => entries as [string, string[]][]);
  const events = page!.map(([, fields]) => JSON.parse(fields[1]!) as RunEvent);
  if (page!.length === limit) events.push(...(await readRunEvents(redis, prefix, runId, events.at(-1)!.seq, limit)));
  const firstId = first![0]?.[0];
  const lastFields = last![0]?.[1];
  return { events, firstSeq: firstId ? Number(firstId.split('-')[0]) : 0, last: lastFields ? (JSON.parse(lastFields[1]!) as RunEvent) : undefined };
}
