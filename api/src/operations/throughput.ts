import { queueCatalog, type QueueKey, type Queues } from '@agentq/shared/queues';
import type { Metrics } from 'bullmq';

const MINUTE_MS = 60_000;

/**
 * BullMQ's per-minute metrics as a dense series of the last `minutes` minutes, oldest first, the
 * current minute last. BullMQ only writes a data point when a job finishes in a later minute:
 * `data[0]` is the minute before `prevTS`'s minute, the jobs since `prevTS` (count − prevCount) are
 * all in `prevTS`'s minute, and the minutes after it had none.
 */
export function perMinuteSeries(metrics: Metrics, now: number, minutes: number): number[] {
  const nowMinute = Math.floor(now / MINUTE_MS);
  const series = new Array<number>(minutes).fill(0);
  const { prevTS, count, prevCount } = metrics.meta;
  if (!prevTS) return series;
  const lastMinute = Math.floor(prevTS / MINUTE_MS);
  for (let index = 0; index < minutes; index++) {
    const minute = nowMinute - (minutes - 1 - index);
    if (minute === lastMinute) series[index] = Math.max(0, count - prevCount);
    else if (minute < lastMinute) series[index] = metrics.data[lastMinute - 1 - minute] ?? 0;
  }
  return series;
}

export type QueueThroughput = { key: QueueKey; name: string; completed: number[]; failed: number[] };

/** Completed and failed jobs per minute for every catalog queue; `since` is the first minute's start. */
export async function queueThroughput(queues: Queues, minutes: number, now = Date.now()): Promise<{ since: string; minutes: number; items: QueueThroughput[] }> {
  const items = await Promise.all(
    (Object.keys(queueCatalog) as QueueKey[]).map(async (key) => {
      const queue = queues[key];
      // One point more than shown: the newest stored point can be older than the window's first minute.
      const [completed, failed] = await Promise.all([queue.getMetrics('completed', 0, minutes), queue.getMetrics('failed', 0, minutes)]);
      return { key, name: queue.name, completed: perMinuteSeries(completed, now, minutes), failed: perMinuteSeries(failed, now, minutes) };
    }),
  );
  const since = (Math.floor(now / MINUTE_MS) - minutes + 1) * MINUTE_MS;
  return { since: new Date(since).toISOString(), minutes, items };
}
