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

/** The first seq still held by the stream (0 when the stream is empty or gone). */
export async function firstRunEventSeq(redis: Redis, prefix: string, runId: string): Promise<number> {
  const entries = (await redis.xrange(runStreamKeys(prefix, runId).events, '-', '+', 'COUNT', 1)) as [string, string[]][];
  const id = entries[0]?.[0];
  return id ? Number(id.split('-')[0]) : 0;
}

/** The last event the stream holds (undefined when it is empty or gone). */
export async function lastRunEvent(redis: Redis, prefix: string, runId: string): Promise<RunEvent | undefined> {
  const entries = (await redis.xrevrange(runStreamKeys(prefix, runId).events, '+', '-', 'COUNT', 1)) as [string, string[]][];
  const fields = entries[0]?.[1];
  return fields ? (JSON.parse(fields[1]!) as RunEvent) : undefined;
}
